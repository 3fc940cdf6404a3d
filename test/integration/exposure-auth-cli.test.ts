import net from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ByteReader, expectedVncResponse } from '../support/rfb-client.js';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { liveScreen } from '../support/live-screen.js';
import { WebSocket } from 'ws';
import { FOLLOW_LAUNCH_PAGE_SH } from '../support/launch-page.js';

// What a listener beyond loopback protects (docs/COMMANDS.md, Security): every console kind is either
// behind the viewer password or refused, and the password resists guessing per address.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A config directory of its own: an exposed listener makes its TLS certificate there. */
const CONFIG_HOME = mkdtempSync(path.join(os.tmpdir(), 'vconsole-auth-config-'));

function start(args: string[], env: NodeJS.ProcessEnv = {}): RunningVconsole {
  const child = startVconsole(args, { XDG_CONFIG_HOME: CONFIG_HOME, ...env });
  cleanup.push(() => child.kill());
  return child;
}

function passwordFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vconsole-auth-')), 'pass');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** A TCP server that says nothing until spoken to, as a SPICE server does. */
async function silentServer(): Promise<number> {
  const server = net.createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanup.push(() => new Promise((done) => server.close(done)));
  return (server.address() as net.AddressInfo).port;
}

/**
 * A VNC viewer's handshake from `from` (one of 127.0.0.x), stopped at the challenge: `answer`
 * sends the response for `password` and resolves with the outcome and when it came. A
 * connection refused before any challenge resolves `challenged` with the reason instead.
 */
async function vncAttempt(port: number, from: string) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => undefined);
  cleanup.push(() => socket.destroy());
  const reader = new ByteReader(socket);
  const read = (n: number) => reader.read(n, 60_000, 'the handshake');
  const reason = async () => (await read((await read(4)).readUInt32BE(0))).toString('utf8');
  await read(12);
  socket.write('RFB 003.008\n');
  const count = (await read(1))[0];
  if (count === 0) return { refused: await reason() };
  const types = [...(await read(count))];
  // VeNCrypt first; plain VNC authentication beside it because the test asks for it by name.
  expect(types).toEqual([19, 2]);
  socket.write(Buffer.from([2]));
  const challenge = await read(16);
  return {
    async answer(password: string): Promise<{ outcome: string; ms: number }> {
      const sentAt = Date.now();
      socket.write(expectedVncResponse(password, challenge));
      const result = (await read(4)).readUInt32BE(0);
      const outcome = result === 0 ? 'ok' : await reason();
      return { outcome, ms: Date.now() - sentAt };
    },
  };
}

async function challenged(port: number, from: string) {
  const attempt = await vncAttempt(port, from);
  if (!attempt.answer) throw new Error(`refused before the challenge: ${attempt.refused}`);
  return { answer: attempt.answer };
}

describe('an exposed listener speaks TLS', () => {
  it('serves a serial console over TLS without --share, behind the password line, and dials it only after the password', async () => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'vconsole-tls-config-'));
    // Neither --share nor --password-file (which implies it): the listener beyond loopback shares.
    const proxy = start(['proxy', 'demo:shell#serial', '--listen', '0.0.0.0'], { XDG_CONFIG_HOME: configHome });
    const port = (await proxy.jsonLines(1))[0].port as number;
    await proxy.waitForStderr(/VNC password for viewers of this listener: (\S+) \(shown once/);
    const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(proxy.stderr())![1];
    const ca = readFileSync(path.join(configHome, 'vconsole', 'tls', 'listener-cert.pem'));
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
    cleanup.push(() => socket.destroy());
    let heard = '';
    socket.on('data', (chunk: Buffer) => (heard += chunk.toString()));
    await waitFor(() => heard.endsWith('vconsole password: '), 'the password prompt');
    socket.write(`${password}\r`);
    await waitFor(() => heard.includes('Welcome to shell'), "the demo shell's welcome");
  });

  it('offers VeNCrypt only, names its certificate with the fingerprint, and offers plain VNC authentication only by name, with a warning', async () => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'vconsole-tls-config-'));
    const proxy = start(['proxy', 'demo:vm-t', '--share', '--listen', '0.0.0.0', '--password-file', passwordFile('r1ght-pw\n')], {
      XDG_CONFIG_HOME: configHome,
    });
    const port = (await proxy.jsonLines(1))[0].port as number;
    await proxy.waitForStderr(
      /TLS certificate of this listener \(made now, give it to viewers as their CA file\): \S+ sha256 Fingerprint=[0-9A-F:]{95}\n/,
    );
    expect(proxy.stderr()).toContain(path.join(configHome, 'vconsole', 'tls', 'listener-cert.pem'));
    expect(proxy.stderr()).not.toContain('--insecure-vnc-auth');
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    cleanup.push(() => socket.destroy());
    const reader = new ByteReader(socket);
    await reader.read(12, 10_000, 'the banner');
    socket.write('RFB 003.008\n');
    expect([...(await reader.read(2, 10_000, 'the security types'))]).toEqual([1, 19]);
    // A viewer that picks plain VNC authentication anyway is refused: no challenge goes out in clear.
    socket.write(Buffer.from([2]));
    expect((await reader.read(4, 10_000, 'the SecurityResult')).readUInt32BE(0)).toBe(1);

    const plain = start(
      ['proxy', 'demo:vm-u', '--share', '--listen', '0.0.0.0', '--insecure-vnc-auth', '--password-file', passwordFile('r1ght-pw\n')],
      {
        XDG_CONFIG_HOME: configHome,
      },
    );
    await plain.jsonLines(1);
    await plain.waitForStderr(/TLS certificate of this listener \(give it/);
    expect(plain.stderr()).toMatch(
      /--insecure-vnc-auth: viewers may also give it without TLS, and then the password's challenge and the screen cross the network in clear/,
    );
  });
});

/**
 * A viewer's VeNCrypt X509Vnc handshake from `from`, up to the challenge inside TLS (trusting
 * `ca`): `answer` sends the response for `password` and resolves with the SecurityResult.
 */
async function tlsChallenged(port: number, from: string, ca: Buffer) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => undefined);
  cleanup.push(() => socket.destroy());
  const reader = new ByteReader(socket);
  const read = (n: number) => reader.read(n, 60_000, 'the VeNCrypt handshake');
  await read(12);
  socket.write('RFB 003.008\n');
  // Still held back (the previous wrong answer's hold may end a moment after its refusal): no types.
  const count = (await read(1))[0];
  if (count === 0) return undefined;
  // VeNCrypt first (open offers plain VNC authentication beside it to this machine).
  expect((await read(count))[0]).toBe(19);
  socket.write(Buffer.from([19]));
  await read(2);
  socket.write(Buffer.from([0, 2]));
  expect([...(await read(6))]).toEqual([0, 1, 0, 0, 1, 5]);
  socket.write(Buffer.from([0, 0, 1, 5]));
  expect((await read(1))[0]).toBe(1);
  socket.removeAllListeners('data');
  const secure = await new Promise<tls.TLSSocket>((resolve, reject) => {
    const client = tls.connect({ socket, ca, servername: 'localhost' });
    client.once('secureConnect', () => resolve(client));
    client.once('error', reject);
  });
  const inside = new ByteReader(secure);
  const challenge = await inside.read(16, 60_000, 'the challenge');
  return {
    async answer(password: string): Promise<number> {
      secure.write(expectedVncResponse(password, challenge));
      return (await inside.read(4, 60_000, 'the SecurityResult')).readUInt32BE(0);
    },
  };
}

describe('guessing the password inside TLS', () => {
  it('is answered ever more slowly: an address on its second wrong password is refused after a fresh one on its first', async () => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'vconsole-tls-config-'));
    // A first hold of 3 s (not 1 s): the two answers below come 3 s apart (3 s and 6 s), far more
    // than a busy machine's stall; without the doubling both would come at 3 s, in either order.
    const proxy = start(['proxy', 'demo:vm-w', '--share', '--listen', '0.0.0.0', '--password-file', passwordFile('r1ght-pw\n')], {
      XDG_CONFIG_HOME: configHome,
      VCONSOLE_AUTH_BACKOFF_FIRST_MS: '3000',
    });
    const port = (await proxy.jsonLines(1))[0].port as number;
    const ca = readFileSync(path.join(configHome, 'vconsole', 'tls', 'listener-cert.pem'));
    expect(await (await tlsChallenged(port, '127.0.0.4', ca))?.answer('wrong-1')).toBe(1);
    // 127.0.0.4 failed once: its next wrong answer waits twice as long as 127.0.0.5's first.
    let again: Awaited<ReturnType<typeof tlsChallenged>>;
    await waitFor(async () => (again = await tlsChallenged(port, '127.0.0.4', ca)) !== undefined, 'the hold over', 10_000);
    const fresh = await tlsChallenged(port, '127.0.0.5', ca);
    const order: string[] = [];
    await Promise.all([
      again!.answer('wrong-2').then((result) => order.push(`second failure: ${result}`)),
      fresh!.answer('wrong-1').then((result) => order.push(`first failure: ${result}`)),
    ]);
    expect(order).toEqual(['first failure: 1', 'second failure: 1']);
    expect(proxy.stderr().match(/wrong VNC password from 127\.0\.0\.4/g)).toHaveLength(1);
  });
});

describe('beyond loopback every VNC console is served by vconsole, behind TLS and a password', () => {
  /** The security types a viewer is offered on `port`. */
  async function offeredTypes(port: number): Promise<number[]> {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    cleanup.push(() => socket.destroy());
    const reader = new ByteReader(socket);
    await reader.read(12, 10_000, 'the banner');
    socket.write('RFB 003.008\n');
    const count = (await reader.read(1, 10_000, 'the count of security types'))[0];
    return [...(await reader.read(count, 10_000, 'the security types'))];
  }

  /** The SecurityResult of plain VNC authentication with `password` (the only type offered). */
  async function plainVncResult(port: number, password: string): Promise<number> {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    cleanup.push(() => socket.destroy());
    const reader = new ByteReader(socket);
    await reader.read(12, 10_000, 'the banner');
    socket.write('RFB 003.008\n');
    expect([...(await reader.read(2, 10_000, 'the security types'))]).toEqual([1, 2]);
    socket.write(Buffer.from([2]));
    socket.write(expectedVncResponse(password, await reader.read(16, 10_000, 'the challenge')));
    return (await reader.read(4, 10_000, 'the SecurityResult')).readUInt32BE(0);
  }

  it.each([
    ['proxy without --share', ['proxy', 'demo:vm-p', '--listen', '0.0.0.0']],
    // open's serial line is its TUI's own: no TLS gate, so it is refused there, naming it.
    ['open, its own viewers too', ['open', 'demo:vm-o', 'demo:shell#serial', '--no-tui', '--viewer', 'none', '--listen', '0.0.0.0']],
  ])('%s offers VeNCrypt only to the network, and the generated password, shown once, opens it', async (_, args) => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'vconsole-tls-config-'));
    const run = start(args, { XDG_CONFIG_HOME: configHome });
    const port = (await run.jsonLines(1))[0].port as number;
    await run.waitForStderr(/VNC password for viewers of this listener: (\S+) \(shown once/);
    const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(run.stderr())![1];
    await run.waitForStderr(/TLS certificate of this listener \(made now, give it to viewers as their CA file\)/);
    if (args[0] === 'open') {
      // From this machine open asks the password without TLS: its browser viewer's page (noVNC) speaks no X509 VeNCrypt.
      expect(await offeredTypes(port)).toEqual([2]);
      expect(await plainVncResult(port, password)).toBe(0);
    } else {
      expect(await offeredTypes(port)).toEqual([19]);
      const ca = readFileSync(path.join(configHome, 'vconsole', 'tls', 'listener-cert.pem'));
      expect(await (await tlsChallenged(port, '127.0.0.7', ca))?.answer(password)).toBe(0);
    }
    if (args[0] === 'open')
      await run.waitForStderr(
        /\[demo:shell#serial\] error: a serial console on --listen 0\.0\.0\.0 would be open to anyone who reaches the port: .*--insecure-expose-unauthenticated to serve it anyway\n/,
      );
  });

  it.each([
    [['proxy', 'demo:vm-a', '--no-share', '--listen', '0.0.0.0']],
    [['open', 'demo:vm-a', '--no-share', '--no-tui', '--viewer', 'none', '--listen', '0.0.0.0']],
  ])(
    'refuses --no-share beyond loopback with one line saying why and what to do, and relays unshared only when asked by name: %j',
    async (args) => {
      const result = await runVconsole(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^vconsole: --no-share on --listen 0\.0\.0\.0 would relay VNC consoles unencrypted, with no password but the console's own: .*; drop --no-share, listen on 127\.0\.0\.1 and reach it with ssh -L .*, or pass --insecure-expose-unauthenticated to relay it anyway$/,
        ),
      ]);
      if (args[0] !== 'proxy') return;
      // Asked for by name, the unshared relay is served, and said to have no authentication.
      const proxy = start([...args, '--insecure-expose-unauthenticated']);
      await proxy.jsonLines(1);
      await proxy.waitForStderr(/the VM console is now reachable from the network, without authentication/);
      expect(proxy.stderr()).not.toContain('VNC password for viewers');
    },
  );
});

describe("open's browser viewer on an exposed listener", () => {
  it('its page (127.0.0.1 only, noVNC) is asked the password without TLS over loopback, and the password opens the screen', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vconsole-tls-browser-'));
    const urls = path.join(dir, 'urls');
    const recorder = path.join(dir, 'record-url');
    writeFileSync(recorder, `#!/bin/sh\n${FOLLOW_LAUNCH_PAGE_SH}\nprintf '%s\\n' "$u" >> '${urls}'\n`, { mode: 0o755 });
    const run = start(['open', 'demo:vm-b', '--viewer', 'browser', '--no-tui', '--listen', '0.0.0.0'], { VCONSOLE_BROWSER: recorder });
    await run.waitForStderr(/VNC password for viewers of this listener: (\S+) \(shown once/);
    const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(run.stderr())![1];
    await waitFor(() => (readFileSync(urls, { flag: 'a+' }).toString().trim() ? true : false), 'the page opened');
    const url = readFileSync(urls, 'utf8').trim().split('\n')[0];
    expect(new URL(url).hostname).toBe('127.0.0.1');
    // The page's websocket, as the tab opens it: cookie, its own Origin, the binary protocol.
    const first = await fetch(url, { redirect: 'manual' });
    const pageUrl = new URL(first.headers.get('location') ?? '', url).href;
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
    const ws = new WebSocket(`${pageUrl.replace(/^http/, 'ws')}ws`, 'binary', { origin: new URL(url).origin, headers: { cookie } });
    cleanup.push(() => ws.terminate());
    let received = Buffer.alloc(0);
    ws.on('message', (data: Buffer) => (received = Buffer.concat([received, data])));
    const take = async (n: number) => {
      await waitFor(() => received.length >= n, `${n} bytes from the page's websocket`);
      const head = received.subarray(0, n);
      received = received.subarray(n);
      return head;
    };
    expect((await take(12)).toString()).toBe('RFB 003.008\n');
    ws.send(Buffer.from('RFB 003.008\n'));
    const count = (await take(1))[0];
    expect([...(await take(count))]).toEqual([2]);
    ws.send(Buffer.from([2]));
    ws.send(expectedVncResponse(password, await take(16)));
    expect((await take(4)).readUInt32BE(0)).toBe(0);
    expect(run.stderr()).not.toContain(new URL(pageUrl).pathname);
  });
});

describe('an exposed listener and the consoles no password protects', () => {
  it('refuses a SPICE console beyond loopback, and the VNC console beside it is closed too', async () => {
    const port = await silentServer();
    const result = await runVconsole(['proxy', 'demo:vm-a', `tcp://127.0.0.1:${port}#spice`, '--share', '--listen', '0.0.0.0']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^vconsole: tcp:\/\/127\.0\.0\.1:\d+#spice: a SPICE console on --listen 0\.0\.0\.0 would be open to anyone .*--insecure-expose-unauthenticated/m,
    );
  });

  it('serves them only when asked to with --insecure-expose-unauthenticated, and says they are open', async () => {
    const proxy = start(['proxy', '--share', '--listen', '0.0.0.0', 'demo:shell#serial', '--insecure-expose-unauthenticated']);
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ target: 'demo:shell#serial', type: 'serial', address: '0.0.0.0' });
    await proxy.waitForStderr(/serial and SPICE consoles on it have no password at all \(--insecure-expose-unauthenticated\)/);
  });

  it('keeps serving serial consoles on loopback as before', async () => {
    const proxy = start(['proxy', 'demo:shell#serial']);
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ type: 'serial', address: '127.0.0.1' });
  });
});

describe('viewer passwords', () => {
  it.each([
    ['abcde\n', /^vconsole: --password-file \S+: the password has 5 characters, fewer than 6; use 6 to 8 characters$/],
    [
      'abcdefghij\n',
      /^vconsole: --password-file \S+: the password has 10 characters; VNC authentication uses only the first 8; use 6 to 8 characters \(a longer one is refused, not cut\)$/,
    ],
  ])('refuses a password file of %j with one line, exit 2', async (text, line) => {
    const result = await runVconsole(['proxy', 'demo:vm-a', '--share', '--listen', '0.0.0.0', '--password-file', passwordFile(text)]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
    expect(result.stderr).not.toContain(text.trim());
  });

  it('generates 8 letters and digits, none that read alike, drawn from all of them', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const proxy = start(['proxy', 'demo:vm-g', '--share', '--listen', '0.0.0.0', '--insecure-vnc-auth']);
      await proxy.waitForStderr(/VNC password for viewers of this listener: (\S+)/);
      const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(proxy.stderr())![1];
      expect(password).toMatch(/^[2-9a-km-np-zA-HJ-NP-Z]{8}$/);
      for (const c of password) seen.add(c);
      proxy.kill();
    }
    // 32 draws from 55 characters: both cases and digits show (the chance one class is missing is below 1e-6).
    expect([/[a-z]/, /[A-Z]/, /[2-9]/].map((re) => [...seen].some((c) => re.test(c)))).toEqual([true, true, true]);
  });
});

describe('guessing the viewer password', () => {
  async function guarded(env: NodeJS.ProcessEnv = {}) {
    const proxy = start(
      ['proxy', 'demo:vm-b', '--share', '--listen', '0.0.0.0', '--insecure-vnc-auth', '--password-file', passwordFile('r1ght-pw\n')],
      env,
    );
    const [{ port }] = await proxy.jsonLines(1);
    return { proxy, port: port as number };
  }

  it('one connection after another: each wrong answer waits longer, the address is refused meanwhile, the right one works after', async () => {
    // Holds of 3 s and 6 s (not 1 s and 2 s): the refusals below must come inside the second,
    // which a busy machine's stall must not outlast.
    const { proxy, port } = await guarded({ VCONSOLE_AUTH_BACKOFF_FIRST_MS: '3000' });
    const first = await (await challenged(port, '127.0.0.2')).answer('wrong-1');
    expect(first.outcome).toBe('authentication failed');
    expect(first.ms).toBeGreaterThanOrEqual(2800);

    const second = (await challenged(port, '127.0.0.2')).answer('wrong-2');
    // While the second answer is held, even the right password from that address is refused at once,
    await waitFor(async () => 'refused' in (await vncAttempt(port, '127.0.0.2')), 'a refusal before any challenge', 10_000);
    const right = await challenged(port, '127.0.0.3');
    // ... and another address is not held back.
    expect((await right.answer('r1ght-pw')).outcome).toBe('ok');
    const late = await second;
    expect(late.outcome).toBe('authentication failed');
    expect(late.ms).toBeGreaterThanOrEqual(5600);

    // The hold is over once the answer came: the right password works again from that address.
    expect((await (await challenged(port, '127.0.0.2')).answer('r1ght-pw')).outcome).toBe('ok');
    expect(proxy.stderr().match(/wrong VNC password from 127\.0\.0\.2/g)).toHaveLength(1);
    expect(proxy.stderr()).not.toMatch(/wrong VNC password from 127\.0\.0\.3/);
  });

  it('many connections at once: one answer is checked, the rest are refused unchecked, one log line', async () => {
    // 8: as many as one address may have waiting to log in (more close its older ones).
    // The 8 answers must all land inside the first one's hold: 5 s of it (not 1 s), so that a
    // busy machine's stall does not let one arrive after it; they come within milliseconds.
    const { proxy, port } = await guarded({ VCONSOLE_AUTH_BACKOFF_FIRST_MS: '5000' });
    const attempts = await Promise.all(Array.from({ length: 8 }, () => challenged(port, '127.0.0.4')));
    const answers = await Promise.all(attempts.map((attempt, i) => attempt.answer(i === 7 ? 'r1ght-pw' : `wrong-${i}`)));
    const outcomes = answers.map((a) => a.outcome);
    const checked = answers.filter((a) => a.outcome === 'authentication failed' || a.outcome === 'ok');
    // Whichever arrived first was checked; if that was a wrong one, everything after it (the right one too) was refused.
    expect(checked.length).toBeLessThanOrEqual(2);
    expect(
      outcomes.filter((o) => /^too many wrong passwords from this address: try again in \d+ s$/.test(o)).length,
    ).toBeGreaterThanOrEqual(6);
    const failed = answers.find((a) => a.outcome === 'authentication failed');
    if (failed) expect(failed.ms).toBeGreaterThanOrEqual(4800);
    await proxy.waitForStderr(/wrong VNC password from 127\.0\.0\.4/);
    expect(proxy.stderr().match(/wrong VNC password/g)).toHaveLength(1);
  });

  it('a burst of connections turned away while the address is held back is one log line, not two per connection', async () => {
    // The 20 attempts must all be refused inside the wrong answer's hold, and all be counted in
    // one summary window: 6 s and 5 s (not 1 s each), far more than a busy machine's stall; the
    // attempts themselves take milliseconds.
    const { proxy, port } = await guarded({ VCONSOLE_AUTH_BACKOFF_FIRST_MS: '6000', VCONSOLE_TURNED_AWAY_SUMMARY_MS: '5000' });
    const held = (await challenged(port, '127.0.0.6')).answer('wrong-pw');
    await proxy.waitForStderr(/wrong VNC password from 127\.0\.0\.6/);
    // In waves of 5: with the held one, fewer than the 8 connections an address may have waiting to log in.
    const refusals: Awaited<ReturnType<typeof vncAttempt>>[] = [];
    for (let wave = 0; wave < 4; wave++)
      refusals.push(...(await Promise.all(Array.from({ length: 5 }, () => vncAttempt(port, '127.0.0.6')))));
    expect(refusals.every((r) => 'refused' in r)).toBe(true);
    await held;
    await proxy.waitForStderr(
      /turned away 20 connections \(20 from 127\.0\.0\.6\), not logged one by one: held back after wrong passwords/,
    );
    // The one connection whose answer was checked has its lines; the 20 turned away have none.
    await proxy.waitForStderr(/client \d+ disconnected/);
    expect(proxy.stderr().match(/connected from 127\.0\.0\.6/g)).toHaveLength(1);
    expect(proxy.stderr().match(/client \d+ disconnected/g) ?? []).toHaveLength(1);
  });

  it('a real viewer with the right password from a clean address gets the screen', async () => {
    const { port } = await guarded();
    const screen = await liveScreen(
      net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.5' }),
      { password: 'r1ght-pw', shared: true },
      cleanup,
    );
    await waitFor(() => screen.framebuffer.width === 800, 'the screen');
  });
});
