import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubevirtFixture, SessionEvent } from '../fixtures/kubevirt-api.js';
import { countLit, pngPixelsDiffering as differingPixels } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { qemuPcArgs, startQemuSerialVm } from './support/qemu.js';
import { BOOT_MENU, askForBootMenu } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand, startProxy, vconsoleEnv } from './support/vconsole.js';

// One VM session per machine: `open` holds a KubeVirt VM's screen and serial line, and the
// `screenshot`, `console` and `proxy` run after it in other processes join them instead of
// dialling KubeVirt again, which keeps one VNC and one serial session per VM (the fixture kicks
// the older one as virt-handler does). The VM's screen is QEMU's PC, its serial line a
// serial-only QEMU whose SeaBIOS answers ESC with its boot menu.
const gate = requireTools(['qemu-system-x86_64', 'setpriv']);

interface PsEntry {
  pid: number;
  command: string;
  target: string;
  kind: string;
  joiners: number;
}

describe.skipIf(gate.skip)(gatedTitle('vconsole commands of one user join the consoles another holds', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let qmp: Qmp;
  let fixture: KubevirtFixture;
  let kubeconfig: string;
  /** XDG_RUNTIME_DIR of every vconsole here: their own, so no other test's vconsole is joined. */
  let runtime: string;
  let env: NodeJS.ProcessEnv;
  const closed: SessionEvent[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('joining');
    runtime = join(dir, 'run');
    await mkdir(runtime, { mode: 0o700 });
    const vncPath = join(dir, 'vm-a.vnc.sock');
    const qmpPath = join(dir, 'vm-a.qmp.sock');
    const qemu = lab.start('qemu vm-a', 'qemu-system-x86_64', [
      ...qemuPcArgs('vm-a'),
      '-vnc',
      `unix:${vncPath}`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
    ]);
    await awaitSocketFile(vncPath, "QEMU vm-a's VNC socket", 60_000, () => qemu.describe());
    qmp = await Qmp.connect(qmpPath);
    await pollFor(async () => (countLit(await qmp.screendump(dir)) >= 1_500 ? true : undefined), {
      what: 'the BIOS text',
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    const serial = await startQemuSerialVm(lab, 'vm-a-serial', dir);
    const { startKubevirtFixture } = await import('../fixtures/kubevirt-api.js');
    fixture = await startKubevirtFixture({
      vmis: [{ namespace: 'default', name: 'vm-a', phase: 'Running', vncSocketPath: vncPath, serialSocketPath: serial.serialPath }],
    });
    fixture.sessions.on('close', (event: SessionEvent) => closed.push(event));
    kubeconfig = fixture.kubeconfigPath({ namespace: 'default' });
    env = { XDG_RUNTIME_DIR: runtime };
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await fixture?.close();
    await lab.cleanup();
  }, 60_000);

  const upgrades = (kind: 'vnc' | 'console') =>
    fixture.requests.filter((r) => r.upgrade && r.path.endsWith(`/vm-a/${kind}`) && r.status === 101).length;
  const vconsole = (args: string[]) =>
    runProgram(process.execPath, [VCONSOLE_BIN, ...args, '--kubeconfig', kubeconfig], { env: vconsoleEnv(env), timeoutMs: 60_000 });
  const ps = async (): Promise<PsEntry[]> => {
    const result = await runProgram(process.execPath, [VCONSOLE_BIN, 'ps', '-o', 'json'], { env: vconsoleEnv(env), timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as PsEntry[];
  };
  /** A screenshot equal to QEMU's screendump (the text cursor blinks: one taken between two blinks). */
  const screenshotLikeQemu = async (file: string) => {
    let last = '';
    await pollFor(
      async () => {
        const result = await vconsole(['screenshot', 'vm-a', '-o', file]);
        if (result.code !== 0) throw new Error(`screenshot failed (${result.code}): ${result.stderr}`);
        const differing = differingPixels(PNG.sync.read(await readFile(file)), await qmp.screendump(dir));
        last = `${differing} pixels differ`;
        return differing === 0 ? true : undefined;
      },
      { what: 'a screenshot equal to the screendump', timeoutMs: 90_000, intervalMs: 100, detail: () => last },
    );
  };

  it(
    '`open` holds both consoles; `console` and `screenshot` join them: one VNC and one serial session upstream, nobody kicked, `ps` lists them',
    async () => {
      const open = await startPortCommand(lab, 'open', ['vm-a', 'vm-a#serial'], ['--viewer', 'none', '--kubeconfig', kubeconfig], env);
      const held = await pollFor(async () => ((await ps()).length === 2 ? ps() : undefined), { what: 'ps to list two held consoles' });
      expect(held.map((entry) => [entry.pid, entry.command, entry.target, entry.kind]).sort()).toEqual([
        [open.process.pid, 'open', 'default/vm-a#serial', 'serial'],
        [open.process.pid, 'open', 'default/vm-a', 'vnc'],
      ]);
      expect([upgrades('vnc'), upgrades('console')]).toEqual([1, 1]);

      // The serial line: ESC typed through the joined line reaches SeaBIOS, its menu comes back.
      const line = await askForBootMenu(lab, ['vm-a', '--kubeconfig', kubeconfig], env);
      expect(line.code, line.stderr).toBe(0);
      expect(line.stdout).toMatch(BOOT_MENU);
      expect(line.stderr.trim()).toBe(`vconsole: default/vm-a: joined the console vconsole open (pid ${open.process.pid}) holds`);

      await screenshotLikeQemu(join(dir, 'joined.png'));
      expect([upgrades('vnc'), upgrades('console')]).toEqual([1, 1]);
      expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
      expect([fixture.activeSessions('default', 'vm-a', 'vnc'), fixture.activeSessions('default', 'vm-a', 'serial')]).toEqual([1, 1]);

      // --no-join dials KubeVirt itself: refused, since the one VNC session is held (kicking nobody).
      const direct = await vconsole(['screenshot', 'vm-a', '--no-join', '-o', join(dir, 'direct.png')]);
      expect(direct.code).toBe(1);
      expect(direct.stderr).toMatch(/Active VNC connection/);

      await open.interrupt();
      expect(await ps()).toEqual([]);
      expect(await readdir(join(runtime, 'vconsole'))).toEqual([]);
      expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'the holder exits: a `proxy --share` joined to it takes the console over and holds it for the next screenshot',
    async () => {
      const before = upgrades('vnc');
      const first = await startProxy(lab, ['vm-a#vnc'], ['--share', '--kubeconfig', kubeconfig], env);
      await pollFor(async () => ((await ps()).length === 1 ? true : undefined), {
        what: 'the first proxy to hold the screen',
        detail: () => first.process.describe(),
      });
      const second = await startProxy(lab, ['vm-a#vnc'], ['--share', '--kubeconfig', kubeconfig], env);
      await pollFor(async () => ((await ps())[0]?.joiners === 1 ? true : undefined), { what: 'the second proxy joined' });
      expect(upgrades('vnc') - before).toBe(1);

      await first.interrupt();
      const taken = await pollFor(
        async () => {
          const [entry] = await ps();
          return entry?.pid === second.process.pid ? entry : undefined;
        },
        { what: 'the second proxy to hold the screen', detail: () => second.process.describe() },
      );
      expect(taken.command).toBe('proxy');
      expect(upgrades('vnc') - before).toBe(2);
      expect(second.process.stderr()).toMatch(/let it go; reconnecting/);

      await screenshotLikeQemu(join(dir, 'taken-over.png'));
      expect(upgrades('vnc') - before).toBe(2);
      expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
      await second.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'another user cannot connect to a held console: EACCES',
    async () => {
      const proxy = await startProxy(lab, ['vm-a#vnc'], ['--share', '--kubeconfig', kubeconfig], env);
      await pollFor(async () => ((await ps()).length === 1 ? true : undefined), { what: 'the proxy to hold the screen' });
      const [socket] = (await readdir(join(runtime, 'vconsole'))).filter((file) => file.endsWith('.sock'));
      const path = join(runtime, 'vconsole', socket);
      const script =
        "require('net').connect(process.argv[1]).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',(e)=>{console.log(e.code);process.exit(1)})";
      const nobody = await runProgram(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, path],
        {
          timeoutMs: 30_000,
        },
      );
      expect(nobody.stdout.trim()).toBe('EACCES');
      expect(nobody.code).toBe(1);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
