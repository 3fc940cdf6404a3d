import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { readGreeting, runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

let fixture: KubevirtFixture;
let kubeconfig: string;
beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'default', name: 'vm-b' },
      { namespace: 'prod', name: 'db-1' },
      { namespace: 'default', name: 'stopped', phase: 'Succeeded' },
      { namespace: 'default', name: 'headless', graphics: false },
    ],
  });
  kubeconfig = fixture.kubeconfigPath();
});
afterAll(() => fixture?.close());
const it = test.extend('proxy', ({ vconsole }) => {
  return (args: string[], env: NodeJS.ProcessEnv = {}) => vconsole.start(['proxy', ...args], { KUBECONFIG: kubeconfig, ...env });
});

describe('vconsole proxy against the KubeVirt API', () => {
  it('checks the VMI, listens, and relays the VNC subresource with plain.kubevirt.io', async ({ proxy }) => {
    const p = proxy(['vm-a']);
    const [line] = await p.jsonLines(1);
    expect(line).toMatchObject({ target: 'default/vm-a', address: '127.0.0.1' });
    const { text, socket } = await readGreeting(line.port as number);
    expect(text).toBe('RFB 003.008\n');
    socket.destroy();
    const upgrade = fixture.requests.find((r) => r.upgrade && r.path.endsWith('/default/virtualmachineinstances/vm-a/vnc'));
    expect(upgrade?.protocols).toContain('plain.kubevirt.io');
    expect(upgrade?.path.startsWith('/apis/subresources.kubevirt.io/v1/')).toBe(true);
    expect(
      fixture.requests.some((r) => r.method === 'GET' && r.path === '/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm-a'),
    ).toBe(true);
  });

  it('takes the namespace from NS/NAME, -n, and the kubeconfig context', async ({ proxy }) => {
    const a = proxy(['prod/db-1']);
    const b = proxy(['db-1', '-n', 'prod']);
    const c = proxy(['db-1'], { KUBECONFIG: fixture.kubeconfigPath({ namespace: 'prod', fileName: 'prod-context.yaml' }) });
    for (const p of [a, b, c]) {
      const [line] = await p.jsonLines(1);
      expect(line.target).toBe('prod/db-1');
      expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
    }
  });

  it('reads $KUBECONFIG as a path list like kubectl: missing files skipped, the first definition wins', async ({ proxy }) => {
    const shadow = fs.readFileSync(kubeconfig, 'utf8').replace(/server: .*/, 'server: https://127.0.0.1:1');
    const later = path.join(fixture.dir, 'later.yaml');
    fs.writeFileSync(later, shadow);
    const list = [path.join(fixture.dir, 'missing.yaml'), kubeconfig, later].join(path.delimiter);
    const p = proxy(['vm-a'], { KUBECONFIG: list });
    const [line] = await p.jsonLines(1);
    expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
  });

  it('authenticates with client certificates and exec plugins from the kubeconfig', async ({ proxy }) => {
    for (const auth of ['client-cert', 'exec'] as const) {
      const p = proxy(['--kubeconfig', fixture.kubeconfigPath({ auth, fileName: `${auth}.yaml` }), 'vm-b']);
      const [line] = await p.jsonLines(1);
      expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
    }
  });

  it('sends preserveSession=true and reports the refusal while another client holds the session', async ({ proxy }) => {
    const p = proxy(['vm-b', '--preserve-session']);
    const [{ port }] = await p.jsonLines(1);
    const first = await readGreeting(port as number);
    const second = net.connect(port as number, '127.0.0.1');
    await once(second, 'close');
    await p.waitForStderr(/Active VNC connection|another client holds/);
    expect(fixture.requests.some((r) => r.upgrade && r.query.preserveSession === 'true')).toBe(true);
    first.socket.destroy();
  });

  it('logs when a new client replaces an older VNC session', async ({ proxy }) => {
    const p = proxy(['vm-a']);
    const [{ port }] = await p.jsonLines(1);
    const first = await readGreeting(port as number);
    const firstClosed = once(first.socket, 'close');
    const second = await readGreeting(port as number);
    await firstClosed; // KubeVirt kicked the older session
    await p.waitForStderr(/client 2 replaces the console session of client 1/);
    // Over the websocket the stream's own account of the close must not hide the takeover.
    await p.waitForStderr(/client 1 disconnected: the console closed the connection: client 2 took over the VM's console session/);
    second.socket.destroy();
  });

  it('closes the client when the upstream dies mid-stream', async ({ proxy }) => {
    const p = proxy(['vm-a']);
    const [{ port }] = await p.jsonLines(1);
    const { socket } = await readGreeting(port as number);
    await waitFor(() => fixture.activeSessions('default', 'vm-a') === 1, 'the session at the fixture');
    fixture.dropConnections({ namespace: 'default', name: 'vm-a' });
    await once(socket, 'close');
  });

  it('drops an upstream that stops answering pings, even when no byte flows', async ({ proxy }) => {
    const p = proxy(['vm-a'], { VCONSOLE_KEEPALIVE_MS: '200' });
    const [{ port }] = await p.jsonLines(1);
    const { socket } = await readGreeting(port as number);
    await waitFor(() => fixture.activeSessions('default', 'vm-a') === 1, 'the session at the fixture');
    fixture.silence({ namespace: 'default', name: 'vm-a' });
    await once(socket, 'close');
    await p.waitForStderr(/the console stopped answering: no answer to 2 keep-alive pings/);
  });
});

describe('an API server reached over plain HTTP (kubectl proxy, a local tunnel)', () => {
  it('works as kubectl does: http:// server, no TLS settings', async ({ proxy }) => {
    const plain = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a' }], plainHttp: true });
    try {
      const config = plain.kubeconfigPath();
      const text = fs.readFileSync(config, 'utf8').replace(/^\s*certificate-authority-data: .*\n/m, '');
      fs.writeFileSync(config, text);
      const p = proxy(['vm-a'], { KUBECONFIG: config });
      const [line] = await p.jsonLines(1);
      expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
    } finally {
      await plain.close();
    }
  });
});

describe('vconsole proxy KubeVirt errors: one line, exit 1', () => {
  const cases: [string, () => string[], () => NodeJS.ProcessEnv, RegExp][] = [
    ['VMI not found', () => ['nope'], () => ({}), /virtualmachineinstances.kubevirt.io "nope" not found; check the VM name and namespace/],
    ['VMI not running', () => ['stopped'], () => ({}), /VMI is not running/],
    ['no graphics device (VNC asked for)', () => ['headless#vnc'], () => ({}), /No graphics devices are present/],
    [
      '401 Unauthorized',
      () => ['vm-a'],
      () => ({ KUBECONFIG: fixture.kubeconfigPath({ token: 'wrong-token', fileName: 'bad.yaml' }) }),
      /Unauthorized/,
    ],
    [
      '403 Forbidden on vnc',
      () => ['vm-a'],
      () => ({ KUBECONFIG: fixture.kubeconfigPath({ token: fixture.forbiddenToken, fileName: 'viewer.yaml' }) }),
      /forbidden.*virtualmachineinstances\/vnc/,
    ],
    ['TLS failure', () => ['vm-a'], () => ({ KUBECONFIG: kubeconfigWithoutCa() }), /TLS certificate verification failed/],
    ['connection refused', () => ['vm-a'], () => ({ KUBECONFIG: kubeconfigFor('https://127.0.0.1:1') }), /connection refused/],
    [
      'DNS failure',
      () => ['vm-a'],
      () => ({ KUBECONFIG: kubeconfigFor('https://no-such-host.invalid:6443') }),
      /cannot resolve host no-such-host.invalid/,
    ],
    ['unknown context', () => ['vm-a', '--context', 'nope'], () => ({}), /context "nope" not found/],
  ];
  it.each(cases)('%s', async (_name, args, env, message) => {
    const result = await runVconsole(['proxy', ...args()], { KUBECONFIG: kubeconfig, ...env() });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain(fixture.token);
  });

  it('--verbose adds a stack trace but never the token', async () => {
    const result = await runVconsole(['proxy', 'nope', '--verbose'], { KUBECONFIG: kubeconfig });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain(fixture.token);
  });
});

describe('empty KubeVirt and OpenStack options: one usage line, exit 2, no request', () => {
  it.each([
    ['-n', ['vm-a', '-n', ''], /option '-n, --namespace <ns>' argument '' is invalid\. it is empty: give a namespace/],
    ['--namespace=', ['vm-a', '--namespace='], /--namespace <ns>' argument '' is invalid/],
    ['--context', ['vm-a', '--context', ' '], /--context <name>' argument ' ' is invalid\. it is empty: give a context name/],
    ['--kubeconfig', ['vm-a', '--kubeconfig', ''], /--kubeconfig <file>' argument '' is invalid/],
    ['--cloud', ['os:web-1', '--cloud', ''], /--cloud <name>' argument '' is invalid/],
    ['--os-region', ['os:web-1', '--os-region', ''], /--os-region <name>' argument '' is invalid/],
  ])('%s', async (_name, args, message) => {
    const before = fixture.requests.length;
    const result = await runVconsole(['proxy', ...args], { KUBECONFIG: kubeconfig });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(fixture.requests.length).toBe(before);
  });
});

describe('a slow viewer', () => {
  it('holds the upstream back instead of growing the proxy memory', async ({ vconsole }) => {
    let produced = 0;
    let paused = false;
    const firehose = await startKubevirtFixture({
      vmis: [{ namespace: 'default', name: 'busy' }],
      openConsole: async () => {
        const chunk = Buffer.alloc(64 * 1024, 0x41);
        const source = new Readable({
          read() {
            produced += chunk.length;
            paused = !this.push(chunk);
          },
        });
        return Object.assign(source, { write: (_c: unknown, cb?: () => void) => (cb?.(), true), end: () => source.destroy() }) as never;
      },
    });
    try {
      const p = vconsole.start(['proxy', 'busy', '--kubeconfig', firehose.kubeconfigPath()]);
      const [{ port }] = await p.jsonLines(1);
      const viewer = net.connect(port as number, '127.0.0.1');
      viewer.pause(); // reads nothing
      await once(viewer, 'connect');
      // Backpressure reaches the console: once kernel socket buffers are full it stops being
      // read and stays stopped. Without backpressure it would never stall.
      let last = -1;
      await waitFor(
        async () => {
          const stalled = paused && produced === last;
          last = produced;
          await new Promise((r) => setTimeout(r, 300));
          return stalled;
        },
        'the console to stall',
        30_000,
      );
      const stalledAt = produced;
      const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p.process.pid}/status`, 'utf8'))?.[1]) * 1024;
      expect(rss).toBeLessThan(200 * 1024 * 1024);
      viewer.resume();
      await waitFor(() => produced > stalledAt + 1024 * 1024, 'the console to flow again');
      viewer.destroy();
    } finally {
      await firehose.close();
    }
  });
});

function kubeconfigFor(server: string): string {
  const text = fs.readFileSync(kubeconfig, 'utf8').replace(/server: .*/, `server: ${server}`);
  const file = path.join(fixture.dir, `server-${encodeURIComponent(server)}.yaml`);
  fs.writeFileSync(file, text);
  return file;
}

function kubeconfigWithoutCa(): string {
  const text = fs.readFileSync(kubeconfig, 'utf8').replace(/^\s*certificate-authority-data: .*\n/m, '');
  const file = path.join(fixture.dir, 'no-ca.yaml');
  fs.writeFileSync(file, text);
  return file;
}
