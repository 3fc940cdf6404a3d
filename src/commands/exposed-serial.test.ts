import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../test/fixtures/tls.js';
import type { DialContext, UpstreamSource } from '../proxy/types.js';
import { AuthBackoff } from '../rfb/server/auth-backoff.js';
import { duplexPair } from '../streams/duplex-pair.js';
import { PASSWORD_PROMPT, SerialTlsGate } from './exposed-serial.js';

let cert: string;
let context: tls.SecureContext;
beforeAll(async () => {
  const made = await selfSignedCertificate('t');
  cert = made.certPem;
  context = tls.createSecureContext({ cert, key: made.keyPem });
});

/** A serial console that answers each line with `echo: LINE`, counting its dials. */
function serialConsole(type = 'serial') {
  const state = { dials: 0, received: '' };
  const source: UpstreamSource = {
    name: 'vm#serial',
    provider: 'test',
    facts: { consoleType: type },
    dial: () => {
      state.dials += 1;
      const [ours, theirs] = duplexPair();
      ours.on('data', (chunk: Buffer) => {
        state.received += chunk.toString();
        ours.write(`echo: ${chunk.toString()}`);
      });
      return Promise.resolve(theirs);
    },
  };
  return { source, state };
}

const logs: string[] = [];
function context_(peer = '10.0.0.5:4444'): DialContext {
  return { signal: new AbortController().signal, peer, log: (_level, message) => logs.push(message) };
}

/** The client side: TLS over the relay end the gate returned, trusting `ca`. */
function connect(relayEnd: Duplex, ca = cert): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ socket: relayEnd, ca, checkServerIdentity: () => undefined });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function readUntil(socket: tls.TLSSocket, pattern: RegExp): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (pattern.test(text)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
  });
}

const gate = (source: UpstreamSource, backoff = new AuthBackoff()) =>
  new SerialTlsGate(source, { context, password: 'r1ght-pw', authBackoff: backoff });

describe('SerialTlsGate', () => {
  it('asks for the password inside TLS, dials the console only after it, then relays both ways', async () => {
    const { source, state } = serialConsole();
    const relayEnd = await gate(source).dial(context_());
    const client = await connect(relayEnd);
    expect(await readUntil(client, /password: $/)).toBe(PASSWORD_PROMPT);
    expect(state.dials).toBe(0);
    // The bytes behind the line's end are the console's, as a pasting client sends them.
    client.write('r1ght-pw\r\nls\r');
    expect(await readUntil(client, /echo: ls\r/)).toBe('\r\necho: ls\r');
    expect(state.dials).toBe(1);
    client.write('id\r');
    await readUntil(client, /echo: id\r/);
    client.destroy();
  });

  it('answers a wrong password after the back-off with no console dialled, and refuses the address meanwhile, unchecked', async () => {
    const { source, state } = serialConsole();
    const backoff = new AuthBackoff({ firstMs: 1500 });
    const guarded = gate(source, backoff);
    const [wrong, right] = [await connect(await guarded.dial(context_())), await connect(await guarded.dial(context_('10.0.0.5:5555')))];
    await Promise.all([readUntil(wrong, /password: $/), readUntil(right, /password: $/)]);
    wrong.write('wr0ng-pw\n');
    const answered = readUntil(wrong, /wrong password\r\n$/);
    while (!backoff.heldBack('10.0.0.5:1')) await new Promise((resolve) => setTimeout(resolve, 5));
    // The right password from the same address while it is held back is not checked.
    right.write('r1ght-pw\n');
    expect(await readUntil(right, /\r\n$/)).toMatch(/^too many wrong passwords from this address/);
    expect(await answered).toBe('wrong password\r\n');
    expect(state.dials).toBe(0);
    expect(logs.some((line) => line.startsWith('wrong password from 10.0.0.5'))).toBe(true);
  });

  it('drops a client whose password line never ends', async () => {
    const { source, state } = serialConsole();
    const client = await connect(await gate(source).dial(context_()));
    await readUntil(client, /password: $/);
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.write('x'.repeat(300));
    await closed;
    expect(state.dials).toBe(0);
  });

  it('gives nothing to a client that speaks no TLS', async () => {
    const { source, state } = serialConsole();
    const relayEnd = await gate(source).dial(context_());
    const closed = new Promise((resolve) => relayEnd.once('close', resolve));
    const heard: Buffer[] = [];
    relayEnd.on('data', (chunk: Buffer) => heard.push(chunk));
    relayEnd.write('r1ght-pw\n');
    await closed;
    expect(Buffer.concat(heard).toString()).not.toContain('password');
    expect(state.dials).toBe(0);
  });

  it('passes a joined client (another vconsole of this user, through its own socket) through untouched', async () => {
    const { source, state } = serialConsole();
    await gate(source).dial({ ...context_(), joined: true });
    expect(state.dials).toBe(1);
  });

  it('passes a console of another kind through untouched', async () => {
    const { source, state } = serialConsole('vnc');
    await gate(source).dial(context_());
    expect(state.dials).toBe(1);
  });
});
