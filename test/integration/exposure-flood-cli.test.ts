import net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { duplexPair } from '../../src/streams/duplex-pair.js';
import { ByteReader, expectedVncResponse } from '../support/rfb-client.js';
import { startVconsole, type RunningVconsole, type StartOptions } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// An exposed listener under attack (docs/COMMANDS.md, Security): a flood of silent connections
// from one address keeps nobody else out, many addresses guessing together get only the
// command's few guesses checked, and TLS is AEAD-only and ends with close_notify.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const PASSWORD = 'r1ght-pw';

function passwordFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vconsole-flood-')), 'pass');
  writeFileSync(file, `${text}\n`, { mode: 0o600 });
  return file;
}

/** `proxy demo:NAME` on 0.0.0.0 with the password, and its certificate directory; `env`/`where` added. */
async function exposed(name: string, extra: string[], env: NodeJS.ProcessEnv = {}, where: StartOptions = {}, password = PASSWORD) {
  const configHome = mkdtempSync(path.join(os.tmpdir(), 'vconsole-flood-config-'));
  const proxy = startVconsole(
    ['proxy', `demo:${name}`, '--share', '--listen', '0.0.0.0', '--password-file', passwordFile(password), ...extra],
    { XDG_CONFIG_HOME: configHome, ...env },
    where,
  );
  cleanup.push(() => proxy.kill());
  const port = (await proxy.jsonLines(1))[0].port as number;
  await proxy.waitForStderr(/TLS certificate of this listener/);
  return { proxy, port, ca: readFileSync(path.join(configHome, 'vconsole', 'tls', 'listener-cert.pem')) };
}

/**
 * One plain VNC authentication (--insecure-vnc-auth) from `from` with `password`: 'ok', the
 * server's reason for a failure or refusal, or 'closed' when the connection ended unanswered.
 */
async function vncLogin(port: number, from: string, password: string): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => undefined);
  cleanup.push(() => socket.destroy());
  const reader = new ByteReader(socket);
  const read = (n: number) => reader.read(n, 60_000, 'the handshake');
  const reason = async () => (await read((await read(4)).readUInt32BE(0))).toString('utf8');
  try {
    await read(12);
    socket.write('RFB 003.008\n');
    const count = (await read(1))[0];
    if (count === 0) return await reason();
    await read(count);
    socket.write(Buffer.from([2]));
    socket.write(expectedVncResponse(password, await read(16)));
    return (await read(4)).readUInt32BE(0) === 0 ? 'ok' : await reason();
  } catch {
    return 'closed';
  } finally {
    socket.destroy();
  }
}

/**
 * Connections from `from` that say nothing, reopened as the server closes them, at most `open`
 * at a time; `stop` ends them. `made` counts the connections that reached the port.
 */
function silentFlood(port: number, from: string, open: number) {
  const sockets = new Set<net.Socket>();
  const state = { made: 0, stopped: false };
  const one = () => {
    if (state.stopped) return;
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
    sockets.add(socket);
    socket.on('error', () => undefined);
    // Read, so that the server's close is seen and the connection opened again at once.
    socket.resume();
    socket.once('connect', () => (state.made += 1));
    socket.once('close', () => {
      sockets.delete(socket);
      setImmediate(one);
    });
  };
  for (let i = 0; i < open; i++) one();
  const stop = () => {
    state.stopped = true;
    for (const socket of sockets) socket.destroy();
  };
  cleanup.push(stop);
  return { state, stop };
}

describe('one address flooding an exposed listener with silent connections', () => {
  it('keeps neither a viewer from another address nor one from its own address out, with a desktop-sized file limit', async () => {
    // 256 open files: a flood of 400 silent connections held 10 s each ran vconsole out of them, and every later connection was closed unserved.
    const { proxy, port } = await exposed('vm-f', ['--insecure-vnc-auth'], {}, { openFiles: 256 });
    const flood = silentFlood(port, '127.0.0.1', 400);
    await waitFor(() => flood.state.made >= 1200, 'the flood to reach the port 1200 times', 60_000);
    const fromElsewhere: string[] = [];
    for (let round = 0; round < 3 && !fromElsewhere.includes('ok'); round++)
      fromElsewhere.push(await vncLogin(port, '127.0.0.2', PASSWORD));
    expect(fromElsewhere).toContain('ok');
    // From the flooding address itself: its viewer answers at once, so the silent ones are closed before it.
    const fromThere: string[] = [];
    for (let round = 0; round < 5 && !fromThere.includes('ok'); round++) fromThere.push(await vncLogin(port, '127.0.0.1', PASSWORD));
    expect(fromThere).toContain('ok');
    flood.stop();
    // The flood is counted, not logged connection by connection.
    await proxy.waitForStderr(/turned away \d+ connections \(\d+ from 127\.0\.0\.1\), not logged one by one/, 30_000);
    // (Those of the first burst, before the address held its share, have their lines.)
    expect((proxy.stderr().match(/connected from 127\.0\.0\.1:/g) ?? []).length).toBeLessThan(flood.state.made / 2);
  }, 120_000);
});

describe('many addresses guessing at once', () => {
  it('get the command’s burst of guesses checked, no more, while a viewer that logged in before still gets in', async () => {
    // No refill during the test: what is checked is the burst (10), however long the guesses take to arrive.
    const { port } = await exposed('vm-g', ['--insecure-vnc-auth'], { VCONSOLE_GUESS_REFILL_MS: '600000' });
    expect(await vncLogin(port, '127.0.0.2', PASSWORD)).toBe('ok');
    const sources = Array.from({ length: 40 }, (_, i) => `127.0.1.${i + 1}`);
    const outcomes = await Promise.all(sources.map((from) => vncLogin(port, from, 'wrong-pw')));
    const checked = outcomes.filter((o) => o === 'authentication failed');
    const unchecked = outcomes.filter((o) => /^too many password guesses at this listener: try again in \d+ s$/.test(o));
    // Each address guessed once: the per-address back-off alone let all 40 be checked.
    expect(checked.length).toBeLessThanOrEqual(9);
    expect(checked.length + unchecked.length).toBe(40);
    // The budget is spent: a new address's right password is not even checked, the known one's is.
    expect(await vncLogin(port, '127.0.2.1', PASSWORD)).toMatch(/^too many password guesses at this listener/);
    expect(await vncLogin(port, '127.0.0.2', PASSWORD)).toBe('ok');
  }, 120_000);
});

describe('a chosen viewer password on an exposed listener', () => {
  it('shorter than the 8 characters VNC authentication carries gets a warning line; 8 gets none', async () => {
    const { proxy: short } = await exposed('vm-s', [], {}, {}, 'abc123');
    expect(short.stderr()).toMatch(
      /^warning: the viewer password of --password-file has 6 characters on --listen 0\.0\.0\.0: anyone who reaches the port may guess it \(2 guesses a second at most, from all addresses together\); use 8 random characters .*$/m,
    );
    expect(short.stderr()).not.toContain('abc123');
    const { proxy } = await exposed('vm-h', []);
    expect(proxy.stderr()).not.toMatch(/password of --password-file has/);
  });
});

/** A VeNCrypt X509Vnc handshake up to TLS on `port`; `tap` gets every byte the server sends after the sub-type's ack. */
async function vencrypt(port: number, options: tls.ConnectionOptions, tap?: (chunk: Buffer) => void): Promise<tls.TLSSocket> {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  cleanup.push(() => socket.destroy());
  const reader = new ByteReader(socket);
  const read = (n: number) => reader.read(n, 30_000, 'the VeNCrypt handshake');
  await read(12);
  socket.write('RFB 003.008\n');
  await read((await read(1))[0]);
  socket.write(Buffer.from([19]));
  await read(2);
  socket.write(Buffer.from([0, 2]));
  await read(6);
  socket.write(Buffer.from([0, 0, 1, 5]));
  expect((await read(1))[0]).toBe(1);
  socket.removeAllListeners('data');
  // The TLS client reads through an in-memory pair, so the test sees the server's records as they come.
  const [client, wire] = duplexPair();
  socket.on('data', (chunk: Buffer) => {
    tap?.(chunk);
    wire.write(chunk);
  });
  socket.on('end', () => wire.end());
  wire.on('data', (chunk: Buffer) => socket.write(chunk));
  const secure = tls.connect({ socket: client, servername: 'localhost', ...options });
  cleanup.push(() => secure.destroy());
  return new Promise((resolve, reject) => {
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', reject);
  });
}

describe('the TLS of an exposed listener', () => {
  it('refuses a TLS 1.2 client that offers only CBC-SHA suites, and speaks 1.2 with an AEAD one', async () => {
    const { port, ca } = await exposed('vm-c', []);
    const cbc = 'ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA:AES256-SHA';
    await expect(vencrypt(port, { ca, maxVersion: 'TLSv1.2', ciphers: cbc })).rejects.toThrow(/handshake failure/i);
    const aead = await vencrypt(port, { ca, maxVersion: 'TLSv1.2' });
    expect(aead.getProtocol()).toBe('TLSv1.2');
    expect(aead.getCipher().name).toMatch(/GCM|CHACHA20/);
  });

  it('ends a logged-in viewer with a TLS alert (close_notify) before the TCP end when vconsole gets Ctrl+C', async () => {
    const { proxy, port, ca } = await exposed('vm-n', []);
    let fromServer = Buffer.alloc(0);
    // TLS 1.2: its alerts are records of their own type (21), where 1.3 hides them as application data.
    const secure = await vencrypt(port, { ca, maxVersion: 'TLSv1.2' }, (chunk) => (fromServer = Buffer.concat([fromServer, chunk])));
    const inside = new ByteReader(secure);
    secure.write(expectedVncResponse(PASSWORD, await inside.read(16, 30_000, 'the challenge')));
    expect((await inside.read(4, 30_000, 'the SecurityResult')).readUInt32BE(0)).toBe(0);
    secure.write(Buffer.from([1]));
    await inside.read(24, 30_000, 'the ServerInit');
    const ending: string[] = [];
    secure.on('end', () => ending.push('end'));
    secure.on('error', (err) => ending.push(`error: ${err.message}`));
    await stopAndWait(proxy);
    await waitFor(() => ending.length > 0, 'the TLS connection to end');
    expect(ending).toEqual(['end']);
    const types: number[] = [];
    for (let at = 0; at + 5 <= fromServer.length; at += 5 + fromServer.readUInt16BE(at + 3)) types.push(fromServer[at]);
    expect(types.at(-1)).toBe(21);
  });
});

async function stopAndWait(proxy: RunningVconsole): Promise<void> {
  await proxy.stop();
  await proxy.exit();
}
