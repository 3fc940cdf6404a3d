import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { portIsClosed, readGreeting, runVconsole, type RunningVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';

const it = test.extend('start', ({ vconsole }) => {
  return (args: string[], env?: NodeJS.ProcessEnv) => vconsole.start(args, env);
});

describe('vconsole proxy (demo provider)', () => {
  it('prints one JSON port line and serves RFB through the port', async ({ start }) => {
    const proxy = start(['proxy', 'demo:vm-a']);
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ target: 'demo:vm-a', address: '127.0.0.1' });
    expect(typeof line.port).toBe('number');
    const { text, socket } = await readGreeting(line.port as number);
    expect(text).toBe('RFB 003.008\n');
    socket.destroy();
  });

  it('serves three clients in a row, each with a fresh upstream session', async ({ start }) => {
    const proxy = start(['proxy', 'demo:vm-a']);
    const [{ port }] = await proxy.jsonLines(1);
    for (let i = 0; i < 3; i++) {
      const { text, socket } = await readGreeting(port as number);
      expect(text).toBe('RFB 003.008\n');
      socket.destroy();
      await once(socket, 'close');
    }
    await proxy.waitForStderr(/client 3 connected/);
  });

  it('gives two targets consecutive ports from --port', async ({ start }) => {
    const base = await freePortPair();
    const proxy = start(['proxy', 'demo:vm-a', 'demo:vm-b', '--port', String(base)]);
    const lines = await proxy.jsonLines(2);
    expect(lines).toEqual([
      { target: 'demo:vm-a', address: '127.0.0.1', port: base, type: 'vnc' },
      { target: 'demo:vm-b', address: '127.0.0.1', port: base + 1, type: 'vnc' },
    ]);
    for (const { port } of lines) expect((await readGreeting(port as number)).text).toBe('RFB 003.008\n');
  });

  it('warns on stderr when listening beyond loopback, saying what protects the port', async ({ start }) => {
    // Its certificate is made in a config directory of its own.
    const proxy = start(['proxy', 'demo:vm-a', '--listen', '0.0.0.0'], {
      XDG_CONFIG_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-proxy-config-')),
    });
    const [line] = await proxy.jsonLines(1);
    expect(line.address).toBe('0.0.0.0');
    await proxy.waitForStderr(/reachable from the network; viewers must speak TLS with the certificate below and give the password/);
    expect(proxy.stdout()).not.toMatch(/warning/);
  });

  it('on SIGINT closes clients and listeners and exits 0', async ({ start }) => {
    const proxy = start(['proxy', 'demo:vm-a', 'demo:vm-b']);
    const lines = await proxy.jsonLines(2);
    const clients = await Promise.all(lines.map((l) => readGreeting(l.port as number)));
    const closed = clients.map((c) => once(c.socket, 'close'));
    proxy.process.kill('SIGINT');
    const { code } = await proxy.exit();
    expect(code).toBe(0);
    await Promise.all(closed);
    for (const { port } of lines) expect(await portIsClosed(port as number)).toBe(true);
  });
});

/** How many times `name` occurs in `text`. */
function occurrences(text: string, name: string): number {
  return text.split(name).length - 1;
}

/** The port lines a proxy printed, read after it exited so that none is still in flight. */
async function portLinesAtExit(proxy: RunningVconsole): Promise<Record<string, unknown>[]> {
  proxy.process.kill('SIGINT');
  await proxy.exit();
  return proxy
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('vconsole proxy: one session per console, named once in errors', () => {
  let kubevirt: KubevirtFixture;
  beforeAll(async () => {
    kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'testvm' }] });
  });
  afterAll(() => kubevirt?.close());

  it('serves a console named twice once, and says so on stderr', async ({ start }) => {
    const proxy = start(['proxy', 'demo:vm-a', 'demo:vm-a']);
    await proxy.jsonLines(1);
    await proxy.waitForStderr(/demo:vm-a is named more than once: one session serves it/);
    expect(await portLinesAtExit(proxy)).toHaveLength(1);
  });

  it('serves a bare KubeVirt name and NS/NAME of the same VMI once', async ({ start }) => {
    const proxy = start(['proxy', 'testvm', 'default/testvm'], { KUBECONFIG: kubevirt.kubeconfigPath() });
    const [line] = await proxy.jsonLines(1);
    expect(line.target).toBe('default/testvm');
    await proxy.waitForStderr(/default\/testvm is named more than once: one session serves it/);
    expect(await portLinesAtExit(proxy)).toHaveLength(1);
  });

  it('names a target that cannot be served exactly once, and closes the others', async () => {
    const result = await runVconsole(['proxy', 'demo:vm-a', 'vm-x', '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vconsole: vm-x: kubeconfig \/nonexistent\/kubeconfig does not exist/m);
    expect(occurrences(result.stderr, 'vm-x')).toBe(1);
    expect(result.stdout).toBe('');
  });

  it('names a console that refuses the dial exactly once in its log line', async ({ start }) => {
    const proxy = start(['proxy', 'tcp://127.0.0.1:1']);
    const [line] = await proxy.jsonLines(1);
    const client = net.connect(line.port as number, '127.0.0.1');
    client.on('error', () => undefined);
    await proxy.waitForStderr(/\[tcp:\/\/127\.0\.0\.1:1\] error: client 1: cannot connect: connection refused/);
    const errorLine = proxy
      .stderr()
      .split('\n')
      .find((l) => l.includes('error: client 1'));
    expect(occurrences(errorLine ?? '', 'tcp://127.0.0.1:1')).toBe(1);
    client.destroy();
  });
});

describe('vconsole proxy usage errors', () => {
  it.each([
    [['proxy', 'demo:a', '--port', '0'], /invalid port "0"/],
    [['proxy', 'demo:a', '--port', '70000'], /invalid port "70000"/],
    [['proxy', 'demo:a', '--port', 'abc'], /invalid port "abc"/],
    [['proxy', 'demo:a', '--listen', 'nowhere'], /invalid listen address "nowhere"/],
    [['proxy', 'vmware:a'], /unknown target scheme "vmware:"/],
    [['proxy', 'Bad_Name'], /bad KubeVirt target "Bad_Name"/],
    [['proxy', 'demo:a', '--bogus'], /unknown option '--bogus'/],
    [['proxy'], /no target given/],
  ])('%j exits 2 with one line naming the problem', async (args, message) => {
    const result = await runVconsole(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });

  it('exits 1 naming the port when it is already taken', async () => {
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const result = await runVconsole(['proxy', 'demo:a', '--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`${port}`));
      expect(result.stderr).toMatch(/in use/i);
    } finally {
      blocker.close();
    }
  });
});

/** Two free consecutive ports, found by binding them briefly. */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const a = net.createServer().listen(0, '127.0.0.1');
    await once(a, 'listening');
    const port = (a.address() as net.AddressInfo).port;
    const b = net.createServer();
    const ok = await new Promise<boolean>((resolve) => {
      b.once('error', () => resolve(false));
      b.listen(port + 1, '127.0.0.1', () => resolve(true));
    });
    a.close();
    b.close();
    if (ok && port < 65535) return port;
  }
  throw new Error('no free consecutive ports');
}

describe('vconsole --help and --version', () => {
  it.each([[[]], [['proxy']], [['open']], [['viewers']], [['list']], [['version']]])(
    '%j --help shows examples and exits 0',
    async (command) => {
      const result = await runVconsole([...command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage: vconsole/);
      expect(result.stdout).toMatch(/Examples:\n {2}vconsole /);
    },
  );

  it('proxy and open describe -p/--port and --listen in the same words', async () => {
    const helps = await Promise.all(
      [['proxy'], ['open']].map(async (command) => (await runVconsole([...command, '--help-all'])).stdout.replace(/\s+/g, ' ')),
    );
    for (const help of helps) {
      expect(help).toContain('-p, --port <port> first local port; targets get PORT, PORT+1, ... (default: free ports)');
      expect(help).toContain(
        "--listen <address> address to listen on (default: the config file's listen, else 127.0.0.1); anything but loopback exposes the consoles to the network",
      );
    }
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const args of [['--version'], ['version'], ['-V']]) {
      const result = await runVconsole(args);
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n')[0]).toBe(version);
    }
  });
});
