import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// Serial consoles through the CLI, against the demo VM's serial shell and the KubeVirt
// fixture's console subresource (the QEMU ones are in test/e2e/serial-console.e2e.test.ts).

let fixture: KubevirtFixture;
let kubeconfig: string;
let dir: string;
const running: RunningVconsole[] = [];

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'default', name: 'headless', graphics: false },
      { namespace: 'default', name: 'no-serial', serialConsole: false },
      { namespace: 'default', name: 'booting', phase: 'Scheduling' },
      { namespace: 'default', name: 'pending', phase: 'Pending' },
      { namespace: 'default', name: 'taken', graphics: false },
      { namespace: 'default', name: 'taken-wait', graphics: false },
      { namespace: 'default', name: 'taken-unread', graphics: false },
      { namespace: 'default', name: 'restarted', graphics: false },
      { namespace: 'default', name: 'taken-open', graphics: false },
      { namespace: 'default', name: 'proxy-shared', graphics: false },
      { namespace: 'default', name: 'proxy-view-only', graphics: false },
    ],
  });
  kubeconfig = fixture.kubeconfigPath();
  dir = await mkdtemp(path.join(tmpdir(), 'vconsole-serial-'));
});
afterAll(async () => {
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
});

function start(args: string[]): RunningVconsole {
  const child = startVconsole(args, { KUBECONFIG: kubeconfig });
  running.push(child);
  return child;
}

/** Another client of a VM's serial console (virtctl console): it takes the VM's one session. */
async function otherSerialClient(name: string): Promise<WebSocket> {
  const other = new WebSocket(fixture.consoleUrl('default', name, 'serial'), ['plain.kubevirt.io'], {
    ca: fixture.caPem,
    headers: { Authorization: `Bearer ${fixture.token}` },
  });
  other.on('error', () => undefined);
  await once(other, 'open');
  return other;
}

const serialUpgrades = (name: string) => fixture.requests.filter((r) => r.upgrade && r.path.endsWith(`/${name}/console`)).length;

/** A TCP client of a serial port: what it has read so far, and a way to type. */
async function serialClient(port: number): Promise<{ text(): string; type(text: string): void; socket: net.Socket }> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  return { text: () => text, type: (t) => socket.write(t), socket };
}

describe('serial consoles through the CLI', () => {
  it('proxy serves a serial console as a raw TCP port, and says its type', async () => {
    const proxy = start(['proxy', 'demo:vm-a#serial']);
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ target: 'demo:vm-a#serial', type: 'serial' });
    const client = await serialClient(line.port as number);
    await waitFor(() => client.text().includes('root@vm-a:~# '), 'the demo shell prompt');
    client.type('hostname\r');
    await waitFor(() => /hostname\r\nvm-a\r\n/.test(client.text()), 'the answer to hostname');
    client.socket.destroy();
  });

  it('open holds the line from the start: a client gets what the VM printed before it came, and two clients share it', async () => {
    const logDir = path.join(dir, 'logs');
    const open = start(['open', 'demo:vm-s#serial', 'demo:vm-v', '--no-tui', '--viewer', 'none', '--log-dir', logDir]);
    const lines = await open.jsonLines(2);
    const serial = lines.find((l) => l.type === 'serial');
    expect(lines.find((l) => l.type === 'vnc')).toMatchObject({ target: 'demo:vm-v' });
    const first = await serialClient(serial?.port as number);
    // The greeting was printed when vconsole opened the line, before this client connected.
    await waitFor(() => first.text().includes('Welcome to vm-s'), 'the replayed greeting');
    const second = await serialClient(serial?.port as number);
    await waitFor(() => second.text().includes('Welcome to vm-s'), 'the greeting replayed to the second client');
    first.type('echo shared\r');
    await waitFor(() => second.text().includes('shared\r\n'), 'what the first client typed, seen by the second');
    expect(open.stderr()).not.toMatch(/took over/);
    const log = path.join(logDir, 'demo_vm-s_serial.log');
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('echo shared'), 'the serial log');
    expect((await stat(log)).mode & 0o777).toBe(0o600);
    first.socket.destroy();
    second.socket.destroy();
  });

  it('open --log-dir: once open has ended, the log holds what the VM printed, byte for byte and in order', async () => {
    const logDir = path.join(dir, 'logs-in-order');
    const open = start(['open', 'demo:vm-o#serial', '--no-tui', '--viewer', 'none', '--log-dir', logDir]);
    const [line] = await open.jsonLines(1);
    const client = await serialClient(line.port as number);
    await waitFor(() => client.text().includes('root@vm-o:~# '), 'the demo shell prompt');
    for (const char of 'echo one two three\r') client.type(char);
    await waitFor(() => client.text().includes('one two three\r\nroot@vm-o:~# '), 'the answer to echo');
    await open.stop();
    expect(await readFile(path.join(logDir, 'demo_vm-o_serial.log'), 'latin1')).toBe(client.text());
    client.socket.destroy();
  });

  it('console pipes stdin to the VM and its answer to stdout, then exits 0', async () => {
    const child = startVconsole(['console', 'demo:vm-p']);
    running.push(child);
    child.process.stdin.end('hostname\r');
    expect(await child.exit()).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toContain('hostname\r\nvm-p\r\n');
    expect(child.stderr()).toBe('');
  });

  it('console over the KubeVirt console subresource picks serial for a VM without a display', async () => {
    const child = start(['console', 'headless']);
    child.process.stdin.end('root\r');
    expect((await child.exit()).code).toBe(0);
    expect(child.stdout()).toContain('Welcome to headless');
    expect(fixture.requests.some((r) => r.upgrade && r.path.endsWith('/headless/console'))).toBe(true);
  });

  it('console says in KubeVirt terms that another client took the console, never that a token was wrong', async () => {
    const child = start(['console', 'taken']);
    await waitFor(() => child.stdout().includes('Welcome to taken'), 'the greeting');
    const other = await otherSerialClient('taken');
    try {
      expect((await child.exit()).code).toBe(1);
      expect(child.stderr()).toMatch(
        /^vconsole: default\/taken: the console closed: the VM stopped, or another client opened its console \(KubeVirt keeps one session per VM\)/m,
      );
      expect(child.stderr()).not.toMatch(/token|close frame|proxy/);
    } finally {
      other.terminate();
    }
  });

  it('console --wait leaves the serial console to another client that took it, and says so', async () => {
    const child = start(['console', 'taken-wait', '--wait', '2m']);
    await waitFor(() => child.stdout().includes('Welcome to taken-wait'), 'the greeting');
    const other = await otherSerialClient('taken-wait');
    try {
      // Without the check it redials at once (the first retry waits for nothing) and kicks the other client.
      expect((await child.exit()).code).toBe(1);
      expect(child.stderr()).toMatch(
        /^vconsole: default\/taken-wait: another client took the VM's serial console \(KubeVirt keeps one session per VM\); attach again to take it back$/m,
      );
      expect(serialUpgrades('taken-wait')).toBe(2);
      expect(other.readyState).toBe(WebSocket.OPEN);
      expect(fixture.sessions.list({ name: 'taken-wait', kind: 'serial' })).toHaveLength(1);
    } finally {
      other.terminate();
    }
  });

  it('console --wait leaves the serial console to another client when RBAC forbids reading the VMI (the console alone granted)', async () => {
    fixture.denyVmiVerb('get');
    try {
      const child = start(['console', 'taken-unread#serial', '--wait', '2m']);
      await waitFor(() => child.stdout().includes('Welcome to taken-unread'), 'the greeting');
      const other = await otherSerialClient('taken-unread');
      try {
        // Without the check it cannot read the VMI, redials at once and kicks the other client.
        expect((await child.exit()).code).toBe(1);
        expect(child.stderr()).toMatch(/^vconsole: default\/taken-unread#serial: another client took the VM's serial console/m);
        expect(serialUpgrades('taken-unread')).toBe(2);
        expect(other.readyState).toBe(WebSocket.OPEN);
      } finally {
        other.terminate();
      }
    } finally {
      fixture.denyVmiVerb('get', false);
    }
  });

  it('open leaves a KubeVirt serial console to a client that took it, and takes it back when a client attaches again', async () => {
    const open = start(['open', 'taken-open#serial', '--no-tui', '--viewer', 'none']);
    const [line] = await open.jsonLines(1);
    const first = await serialClient(line.port as number);
    await waitFor(() => first.text().includes('Welcome to taken-open'), 'the greeting');
    const other = await otherSerialClient('taken-open');
    try {
      await open.waitForStderr(/another client took the VM's serial console \(KubeVirt keeps one session per VM\)/);
      expect(serialUpgrades('taken-open')).toBe(2);
      expect(other.readyState).toBe(WebSocket.OPEN);
      // The user attaching again is what takes the console back.
      const again = await serialClient(line.port as number);
      await waitFor(() => serialUpgrades('taken-open') === 3, 'the console dialled afresh');
      await waitFor(() => other.readyState === WebSocket.CLOSED, 'the other client kicked');
      again.socket.destroy();
    } finally {
      first.socket.destroy();
      other.terminate();
    }
  });

  it('proxy --share holds the serial line as open does: a console in another terminal joins it and kicks no client', async () => {
    const proxy = start(['proxy', 'proxy-shared#serial', '--share']);
    const [line] = await proxy.jsonLines(1);
    // The line opened before any client came: the greeting is replayed to this one.
    const client = await serialClient(line.port as number);
    await waitFor(() => client.text().includes('Welcome to proxy-shared'), 'the replayed greeting');
    const attached = start(['console', 'proxy-shared#serial']);
    try {
      await attached.waitForStderr(/joined the console vconsole proxy \(pid \d+\) holds/);
      attached.process.stdin.write('echo joined\r');
      await waitFor(() => client.text().includes('echo joined\r\n'), 'what the console typed, seen by the proxy client');
      client.type('echo back\r');
      await waitFor(() => attached.stdout().includes('echo back\r\n'), 'what the proxy client typed, seen by the console');
      expect(serialUpgrades('proxy-shared')).toBe(1);
      expect(proxy.stderr()).not.toMatch(/took/);
      expect(client.socket.destroyed).toBe(false);
    } finally {
      client.socket.destroy();
    }
  });

  it('proxy --view-only: neither a client of its port nor a joined vconsole types on the shared line', async () => {
    const proxy = start(['proxy', 'proxy-view-only#serial', '--view-only']);
    const [line] = await proxy.jsonLines(1);
    const client = await serialClient(line.port as number);
    await waitFor(() => client.text().includes('Welcome to proxy-view-only'), 'the replayed greeting');
    const attached = start(['console', 'proxy-view-only#serial']);
    try {
      await attached.waitForStderr(/joined the console vconsole proxy \(pid \d+\) holds/);
      await waitFor(() => attached.stdout().includes('Welcome to proxy-view-only'), 'the greeting replayed to the joined console');
      attached.process.stdin.write('echo joined-typed\r');
      client.type('echo client-typed\r');
      await proxy.waitForStderr(/from a vconsole of yours typed on the line shared view-only/);
      await proxy.waitForStderr(/client from (?!a vconsole)\S+ typed on the line shared view-only/);
      // The console echoes what reaches it: nothing did, to the watching client or the joined console.
      for (const seen of [client.text(), attached.stdout()]) expect(seen).not.toMatch(/typed/);
      expect(client.socket.destroyed).toBe(false);
    } finally {
      client.socket.destroy();
    }
  });

  it('console --wait reconnects to a VM restarted under it (a new VMI)', async () => {
    const child = start(['console', 'restarted', '--wait', '2m']);
    await waitFor(() => child.stdout().includes('Welcome to restarted'), 'the greeting');
    fixture.removeVmi('default', 'restarted');
    fixture.addVmi({ namespace: 'default', name: 'restarted', graphics: false });
    await child.waitForStderr(/reconnected/);
    await waitFor(() => child.stdout().split('Welcome to restarted').length === 3, 'the new VMI greeting');
    child.process.stdin.end();
    expect((await child.exit()).code).toBe(0);
  });

  it('console --wait waits for a VM that is not running yet', async () => {
    const child = start(['console', 'booting', '--wait', '2m']);
    await child.waitForStderr(/VMI is not running \(phase Scheduling\); trying again for up to/);
    fixture.setPhase('default', 'booting', 'Running');
    child.process.stdin.end('x\r');
    expect((await child.exit()).code).toBe(0);
    expect(child.stdout()).toContain('Welcome to booting');
  });

  it.each([
    [
      ['console', 'no-serial'],
      1,
      /^vconsole: default\/no-serial: No serial consoles are present; the VM was defined without a serial console/,
    ],
    [['console', 'pending'], 1, /^vconsole: default\/pending: VMI is not running \(phase Pending\); start it/],
    [['console', 'demo:vm-a#vnc'], 2, /^vconsole: vconsole console attaches serial consoles, not the vnc console of demo:vm-a/],
    [['console', 'demo:vm-a', '--escape', 'q'], 2, /^vconsole: invalid escape key "q"; use a control key/],
    [['console', 'demo:vm-a', '--wait', 'soon'], 2, /^vconsole: invalid duration "soon"/],
    [['proxy', 'demo:vm-a#rfb'], 2, /^vconsole: unknown console type "#rfb"; use vnc, serial, spice, rdp, mks or auto/],
    [
      ['proxy', 'demo:vm-a#rdp'],
      2,
      /^vconsole: demo targets have no rdp console \("demo:vm-a"\); the demo offers vnc or serial consoles$/m,
    ],
    [['proxy', 'vm-a#spice'], 2, /^vconsole: kubevirt targets have no spice console \("vm-a"\); KubeVirt offers vnc or serial consoles$/m],
    [
      ['proxy', 'demo:vm-a', '--type', 'spice'],
      2,
      /^vconsole: demo targets have no spice console \("demo:vm-a"\); the demo offers vnc or serial consoles$/m,
    ],
    [['proxy', 'demo:vm-a', '--type', 'rfb'], 2, /unknown console type "rfb"/],
  ])('bad input: vconsole %j exits %i with one line', async (args, code, pattern) => {
    const result = await runVconsole(args, { KUBECONFIG: kubeconfig });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
