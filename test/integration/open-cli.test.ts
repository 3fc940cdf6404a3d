import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture } from '../fixtures/kubevirt-api.js';
import { portIsClosed, REPO_ROOT, runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const FAKE_VIEWER = path.join(REPO_ROOT, 'test', 'fixtures', 'fake-viewer.mjs');

interface ViewerLogEntry {
  name: string;
  argv: string[];
  pid: number;
  event?: string;
  rfb?: string;
  port?: number;
}

let binDir: string;
const running: RunningVconsole[] = [];
const viewerLogs: string[] = [];

beforeAll(() => {
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-open-'));
  const script = path.join(binDir, 'fake-viewer.mjs');
  fs.copyFileSync(FAKE_VIEWER, script);
  fs.chmodSync(script, 0o755);
  for (const name of ['vncviewer', 'remote-viewer']) fs.symlinkSync(script, path.join(binDir, name));
  fs.symlinkSync(process.execPath, path.join(binDir, 'node'));
});
afterAll(() => fs.rmSync(binDir, { recursive: true, force: true }));
afterEach(async () => {
  // Ctrl+C as a user would: vconsole stops the viewers it started. Anything a failed test
  // left behind is killed from the viewers' own records.
  await Promise.all(running.splice(0).map((child) => child.stop()));
  for (const log of viewerLogs.splice(0)) {
    if (!fs.existsSync(log)) continue;
    for (const line of fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      const { pid } = JSON.parse(line) as { pid: number };
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
});

function openWith(args: string[], extraEnv: Record<string, string> = {}) {
  const log = path.join(binDir, `viewers-${Math.random().toString(36).slice(2)}.jsonl`);
  viewerLogs.push(log);
  const child = startVconsole(['open', ...args], { PATH: binDir, FAKE_VIEWER_LOG: log, ...extraEnv });
  running.push(child);
  const entries = (): ViewerLogEntry[] =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ViewerLogEntry)
      : [];
  return { child, entries };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('vconsole open (stand-in viewer on PATH, no terminal)', () => {
  it('launches the preferred viewer per target with the address form it understands', async () => {
    const { child, entries } = openWith(['demo:vm-a', 'demo:vm-b']);
    const lines = await child.jsonLines(2);
    expect(lines.map((l) => l.target).sort()).toEqual(['demo:vm-a', 'demo:vm-b']);
    // remote-viewer comes first on Linux: it gets a vnc:// URL and a title naming the VM.
    await waitFor(() => entries().filter((e) => e.event === 'connected').length === 2, 'both viewers to read the RFB greeting');
    for (const line of lines) {
      const viewer = entries().find((e) => e.event === 'connected' && e.argv.includes(`vnc://127.0.0.1:${line.port}`));
      expect(viewer?.name).toBe('remote-viewer');
      expect(viewer?.argv).toEqual(['--title', String(line.target), `vnc://127.0.0.1:${line.port}`]);
      expect(viewer?.rfb).toBe('RFB 003.008\n');
    }
  });

  it('gives TigerVNC the HOST::PORT form when asked for it, with --viewer-arg first', async () => {
    const { child, entries } = openWith(['demo:vm-a', '--viewer', 'tigervnc', '--viewer-arg', '-FullScreen']);
    const [line] = await child.jsonLines(1);
    await waitFor(() => entries().some((e) => e.event === 'connected'), 'the viewer to connect');
    const viewer = entries().find((e) => e.event === 'connected')!;
    expect(viewer.name).toBe('vncviewer');
    expect(viewer.argv).toEqual(['-FullScreen', `127.0.0.1::${line.port}`]);
  });

  it('reports a viewer that dies at once with its output, and keeps the proxy listening', async () => {
    const { child } = openWith(['demo:vm-a'], { FAKE_VIEWER_EXIT_CODE: '1' });
    const [line] = await child.jsonLines(1);
    await child.waitForStderr(/\[demo:vm-a\] viewer failed: .*exited at once with code 1: fake-viewer: unable to connect/);
    expect(child.stderr()).not.toContain('error: viewer');
    expect(await portIsClosed(line.port as number)).toBe(false);
  });

  it('prints a viewer path with control characters visibly in its viewer lines', async () => {
    const viewer = path.join(binDir, 'my\x1b[31mviewer');
    fs.symlinkSync(path.join(binDir, 'fake-viewer.mjs'), viewer);
    try {
      const { child } = openWith(['demo:vm-a', '--viewer', viewer], { FAKE_VIEWER_EXIT_CODE: '1' });
      await child.waitForStderr(/\[demo:vm-a\] viewer failed: my\\e\[31mviewer exited at once/);
      expect(child.stderr()).not.toContain('\x1b');
    } finally {
      fs.rmSync(viewer);
    }
  });

  it('says which viewer gets --viewer-arg when --viewer does not name one', async () => {
    const { child } = openWith(['demo:vm-a', '--viewer-arg', '-X']);
    await child.waitForStderr(
      /--viewer-arg -X goes to remote-viewer \(virt-viewer\) \(.*remote-viewer\), the first viewer found here; name the viewer it is meant for with --viewer/,
    );
  });

  it('with no viewer installed still serves every target and says how to get one', async () => {
    const child = startVconsole(['open', 'demo:vm-a', 'demo:vm-b'], { PATH: '/nonexistent' });
    running.push(child);
    await child.waitForStderr(/no VNC viewer found \(looked for .*remote-viewer/);
    await child.waitForStderr(/apt install tigervnc-viewer/);
    // Besides each port's line, stdout has the browser pages' URLs no browser could open.
    const portLines = () =>
      child
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('"port"'));
    await waitFor(() => portLines().length === 2, 'both ports');
    for (const line of portLines()) expect(await portIsClosed((JSON.parse(line) as { port: number }).port)).toBe(false);
  });

  it('vconsole viewers --json on a host with none: one JSON document, exit 0', async () => {
    const result = await runVconsole(['viewers', '--json'], { PATH: '/nonexistent' });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { selected: unknown; lookedFor: string[]; install: string };
    expect(report.selected).toBeNull();
    expect(report.lookedFor.length).toBeGreaterThan(0);
    expect(report.install).toMatch(/apt install/);
  });

  it('without a terminal, exits 1 when no target can be opened, each error on its own line', async () => {
    const result = await runVconsole(['open', 'vm-x', 'vm-y', '--viewer', 'none', '--kubeconfig', path.join(binDir, 'missing.yaml')], {
      PATH: binDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\[vm-x\] error: kubeconfig .*missing.yaml does not exist/);
    expect(result.stderr).toMatch(/\[vm-y\] error: kubeconfig .*missing.yaml does not exist/);
    // The line names its target once: `[vm-x] error: kubeconfig ...`, no `vm-x:` after it.
    for (const name of ['vm-x', 'vm-y']) expect(result.stderr.split(name)).toHaveLength(2);
    expect(result.stderr).toMatch(/vconsole: no target could be opened/);
    expect(result.stdout).toBe('');
  });

  it('one failing target does not stop the others', async () => {
    const { child } = openWith(['missing-vm', 'demo:vm-a', '--viewer', 'none'], { KUBECONFIG: path.join(binDir, 'no-such-kubeconfig') });
    const [line] = await child.jsonLines(1);
    expect(line.target).toBe('demo:vm-a');
    await child.waitForStderr(/\[missing-vm\] error: no Kubernetes configuration found/);
    expect(await portIsClosed(line.port as number)).toBe(false);
    expect(child.process.exitCode).toBe(null);
  });

  it('opens a console named twice once, and says so on stderr', async () => {
    const { child } = openWith(['demo:vm-a', 'demo:vm-a', '--viewer', 'none']);
    await child.jsonLines(1);
    await child.waitForStderr(/demo:vm-a is named more than once: one session serves it/);
    child.process.kill('SIGINT');
    await child.exit();
    expect(
      child
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{')),
    ).toHaveLength(1);
  });

  it('opens a bare KubeVirt name and NS/NAME of the same VMI once', async () => {
    const kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'testvm' }] });
    try {
      const { child } = openWith(['testvm', 'default/testvm', '--viewer', 'none'], { KUBECONFIG: kubevirt.kubeconfigPath() });
      const [line] = await child.jsonLines(1);
      expect(line.target).toBe('default/testvm');
      await child.waitForStderr(/default\/testvm is named more than once: one session serves it/);
      child.process.kill('SIGINT');
      await child.exit();
      expect(
        child
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('{')),
      ).toHaveLength(1);
      expect(child.stderr()).not.toMatch(/error/);
    } finally {
      await kubevirt.close();
    }
  });

  it("launches a screen's viewer while the pre-flight runs, and stops it again when the VM is not there", async () => {
    const kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'testvm' }] });
    try {
      // A screen for certain (--type vnc): with auto the viewer waits for the pre-flight.
      const { child, entries } = openWith(['nosuchvm', 'testvm', '--viewer', 'tigervnc', '--type', 'vnc'], {
        KUBECONFIG: kubevirt.kubeconfigPath(),
      });
      await child.waitForStderr(/\[default\/nosuchvm\] viewer: TigerVNC closed: the console did not open/);
      // Its error line and the viewer's may come in either order: both are said.
      await child.waitForStderr(/\[default\/nosuchvm\] error: virtualmachineinstances.kubevirt.io "nosuchvm" not found/);
      // The console that exists is served, its viewer reaches it through the port it printed.
      const [line] = await child.jsonLines(1);
      expect(line.target).toBe('default/testvm');
      await waitFor(() => entries().some((e) => e.event === 'connected' && e.port === line.port), 'the viewer of testvm to connect');
      expect(entries().filter((e) => e.event === 'connected')).toHaveLength(1);
      expect(child.stderr()).not.toMatch(/\[default\/testvm\] (error|viewer: TigerVNC closed)/);
    } finally {
      await kubevirt.close();
    }
  });

  it('gives a VM without a display (auto: its serial console) no VNC session, and the VM with one its viewer', async () => {
    // headless's pre-flight is answered once its guessed viewer has connected: on a busy machine
    // the answer could otherwise come first, and there would be no viewer to stop.
    let viewerOfHeadlessConnected: () => Promise<void> = () => Promise.resolve();
    const kubevirt = await startKubevirtFixture({
      vmis: [
        { namespace: 'default', name: 'headless', graphics: false },
        { namespace: 'default', name: 'testvm' },
      ],
      beforeVmiGet: (_namespace, name) => (name === 'headless' ? viewerOfHeadlessConnected() : Promise.resolve()),
    });
    try {
      const { child, entries } = openWith(['headless', 'testvm', '--viewer', 'tigervnc'], { KUBECONFIG: kubevirt.kubeconfigPath() });
      viewerOfHeadlessConnected = () => child.waitForStderr(/\[default\/headless\] client 1 connected/);
      const lines = await child.jsonLines(2);
      const headless = lines.find((l) => l.target === 'default/headless');
      const testvm = lines.find((l) => l.target === 'default/testvm');
      expect(headless?.type).toBe('serial');
      await waitFor(() => entries().some((e) => e.event === 'connected' && e.port === testvm?.port), 'the viewer of testvm to connect');
      // The VNC viewer launched for KubeVirt's guess while the pre-flight ran got no byte of the
      // serial console (its connection was closed) and was stopped.
      await child.waitForStderr(/\[default\/headless\] viewer: TigerVNC closed: the pre-flight found a serial console/);
      await child.waitForStderr(/\[default\/headless\] client 1 closed: it came for a vnc console; the pre-flight found serial/);
      expect(entries().every((e) => e.port !== headless?.port)).toBe(true);
    } finally {
      await kubevirt.close();
    }
  });

  it('says why a serial console it cannot reach is still connecting, while the others serve', async () => {
    const { child } = openWith(['tcp://127.0.0.1:1#serial', 'demo:vm-a', '--viewer', 'none']);
    const [line] = await child.jsonLines(1);
    expect(line.target).toBe('demo:vm-a');
    await child.waitForStderr(
      /\[tcp:\/\/127\.0\.0\.1:1#serial\] warning: cannot connect: connection refused.*; trying again for up to \d+ s/,
      15_000,
    );
    expect(child.process.exitCode).toBe(null);
  });

  it('shared (the default): a VNC console that refuses the dial fails before it listens, its line naming it once, exit 1', async () => {
    const { child } = openWith(['tcp://127.0.0.1:1', '--viewer', 'none']);
    const { code } = await child.exit();
    expect(code).toBe(1);
    expect(child.stdout()).toBe('');
    const errorLine =
      child
        .stderr()
        .split('\n')
        .find((l) => l.includes('error: cannot connect: connection refused')) ?? '';
    expect(errorLine).toMatch(/^\[tcp:\/\/127\.0\.0\.1:1\] error: cannot connect: connection refused/);
    expect(errorLine.split('tcp://127.0.0.1:1')).toHaveLength(2);
  });

  it('--no-share: names a console that refuses the dial once in its error line', async () => {
    const { child } = openWith(['tcp://127.0.0.1:1', '--viewer', 'none', '--no-share']);
    const [line] = await child.jsonLines(1);
    const client = net.connect(line.port as number, '127.0.0.1');
    client.on('error', () => undefined);
    await child.waitForStderr(/\[tcp:\/\/127\.0\.0\.1:1\] error: client 1: cannot connect: connection refused/);
    const errorLine =
      child
        .stderr()
        .split('\n')
        .find((l) => l.includes('error: client 1')) ?? '';
    expect(errorLine.split('tcp://127.0.0.1:1')).toHaveLength(2);
    client.destroy();
  });

  it('Ctrl+C closes every viewer, client and port and exits 0', async () => {
    const { child, entries } = openWith(['demo:vm-a', 'demo:vm-b']);
    const lines = await child.jsonLines(2);
    await waitFor(() => entries().filter((e) => e.event === 'connected').length === 2, 'both viewers to connect');
    const pids = entries()
      .filter((e) => e.event === 'connected')
      .map((e) => e.pid);
    expect(pids.every(isAlive)).toBe(true);
    child.process.kill('SIGINT');
    const { code } = await child.exit();
    expect(code).toBe(0);
    await waitFor(() => !pids.some(isAlive), 'the viewers to be gone');
    for (const line of lines) expect(await portIsClosed(line.port as number)).toBe(true);
  });
});
