import { X509Certificate } from 'node:crypto';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../test/fixtures/tls.js';
import { ByteReader, expectedVncResponse } from '../../../test/support/rfb-client.js';
import { duplexPair } from '../../streams/duplex-pair.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { AuthBackoff } from './auth-backoff.js';
import { serveClient, type RfbServerOptions } from './rfb-server.js';
import { isThisMachinePeer, tlsForPeer } from './vencrypt.js';

// VeNCrypt X509Vnc as TigerVNC and gtk-vnc speak it, byte by byte, against the server over an
// in-memory connection (how the hub serves each client), and the hostile cases.

let certPem: string;
let context: tls.SecureContext;
beforeAll(async () => {
  const made = await selfSignedCertificate('vconsole-test', ['127.0.0.1']);
  certPem = made.certPem;
  context = tls.createSecureContext({ cert: made.certPem, key: made.keyPem });
});

const PASSWORD = 'sesame-1';
const T = 5000;

function serve(overrides: Partial<RfbServerOptions> = {}) {
  const fb = new Framebuffer(64, 48, 'vm-tls');
  fb.fill({ x: 0, y: 0, w: 64, h: 48 }, 0x336699);
  const [clientEnd, serverEnd] = duplexPair();
  const served = serveClient(serverEnd, {
    framebuffer: fb,
    password: PASSWORD,
    tls: { context },
    input: { key: () => undefined, pointer: () => undefined, clipboard: () => undefined },
    ...overrides,
  });
  const closed = new Promise<Error | undefined>((resolve) => served.once('close', resolve));
  return { client: clientEnd, closed, reader: new ByteReader(clientEnd) };
}

/** The RFB part before VeNCrypt: banner, version, the security types, type 19 chosen. */
async function chooseVencrypt(client: Duplex, reader: ByteReader): Promise<number[]> {
  expect((await reader.read(12, T, 'the banner')).toString()).toBe('RFB 003.008\n');
  client.write('RFB 003.008\n');
  const count = (await reader.read(1, T, 'the type count'))[0];
  const types = [...(await reader.read(count, T, 'the types'))];
  client.write(Buffer.from([19]));
  return types;
}

/** VeNCrypt 0.2 up to the server's "accepted" byte, as TigerVNC's CSecurityVeNCrypt reads it. */
async function negotiate(client: Duplex, reader: ByteReader): Promise<{ subtypes: number[]; accepted: number }> {
  await chooseVencrypt(client, reader);
  expect([...(await reader.read(2, T, 'the VeNCrypt version'))]).toEqual([0, 2]);
  client.write(Buffer.from([0, 2]));
  expect((await reader.read(1, T, 'the version ack'))[0]).toBe(0);
  const count = (await reader.read(1, T, 'the sub-type count'))[0];
  const list = await reader.read(4 * count, T, 'the sub-types');
  const subtypes = Array.from({ length: count }, (_, i) => list.readUInt32BE(4 * i));
  client.write(Buffer.from([0, 0, 1, 5]));
  return { subtypes, accepted: (await reader.read(1, T, 'the sub-type answer'))[0] };
}

/**
 * TLS on the same connection, checked against `ca`; resolves the TLS socket once secure. The
 * client's TLS runs on a stream of its own piped to the connection (Node's TLS client over a
 * paused stream that was read before never finishes its handshake).
 */
function startTls(client: Duplex, ca: string): Promise<tls.TLSSocket> {
  client.removeAllListeners('data');
  const [tlsSide, wire] = duplexPair();
  client.pipe(wire).pipe(client);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ socket: tlsSide, ca, checkServerIdentity: () => undefined });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('VeNCrypt X509Vnc', () => {
  it('offers type 19 only, then 0.2 with X509Vnc, TLS with the certificate, and VNC authentication inside', async () => {
    const { client, reader } = serve();
    const { subtypes, accepted } = await negotiate(client, reader);
    expect([subtypes, accepted]).toEqual([[261], 1]);
    const secure = await startTls(client, certPem);
    expect(secure.getPeerX509Certificate()?.fingerprint256).toBe(new X509Certificate(certPem).fingerprint256);
    const inside = new ByteReader(secure);
    const challenge = await inside.read(16, T, 'the challenge');
    secure.write(expectedVncResponse(PASSWORD, challenge));
    expect((await inside.read(4, T, 'the SecurityResult')).readUInt32BE(0)).toBe(0);
    secure.write(Buffer.from([1]));
    const init = await inside.read(24, T, 'ServerInit');
    expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([64, 48]);
    expect((await inside.read(init.readUInt32BE(20), T, 'the name')).toString()).toBe('vm-tls');
    secure.destroy();
  });

  it('offers plain VNC authentication beside it only when asked', async () => {
    const plain = serve({ tls: { context, alsoPlainVncAuth: true } });
    expect(await chooseVencrypt(plain.client, plain.reader)).toEqual([19, 2]);
    const only = serve();
    expect(await chooseVencrypt(only.client, only.reader)).toEqual([19]);
  });

  it('refuses a client that picks plain VNC authentication when it is not offered', async () => {
    const { client, reader, closed } = serve();
    await reader.read(12, T, 'the banner');
    client.write('RFB 003.008\n');
    await reader.read(2, T, 'the types');
    client.write(Buffer.from([2]));
    const result = await reader.read(4, T, 'the SecurityResult');
    expect(result.readUInt32BE(0)).toBe(1);
    expect((await closed)?.message).toMatch(/security type 2 is not offered \(only 19\)/);
  });

  it('refuses an RFB 3.3 client, which cannot speak VeNCrypt, with the reason', async () => {
    const { client, reader, closed } = serve();
    await reader.read(12, T, 'the banner');
    client.write('RFB 003.003\n');
    expect((await reader.read(4, T, 'the type')).readUInt32BE(0)).toBe(0);
    const reason = await reader.read((await reader.read(4, T, 'the length')).readUInt32BE(0), T, 'the reason');
    expect(reason.toString()).toMatch(/VeNCrypt \(TLS\), which an RFB 3.3 viewer does not/);
    expect((await closed)?.message).toMatch(/RFB 3.3/);
  });

  for (const [major, minor] of [
    [0, 1],
    [0, 0],
    [1, 2],
    [255, 255],
  ]) {
    it(`answers VeNCrypt version ${major}.${minor} with 0xff and closes`, async () => {
      const { client, reader, closed } = serve();
      await chooseVencrypt(client, reader);
      await reader.read(2, T, 'the version');
      client.write(Buffer.from([major, minor]));
      expect((await reader.read(1, T, 'the ack'))[0]).toBe(0xff);
      expect((await closed)?.message).toMatch(new RegExp(`VeNCrypt version ${major}\\.${minor} is not spoken here`));
    });
  }

  for (const subtype of [0, 2, 256, 260, 262, 19, 0xffffffff]) {
    it(`refuses sub-type ${subtype} with 0 and closes`, async () => {
      const { client, reader, closed } = serve();
      await chooseVencrypt(client, reader);
      await reader.read(2, T, 'the version');
      client.write(Buffer.from([0, 2]));
      await reader.read(6, T, 'ack and sub-types');
      const chosen = Buffer.alloc(4);
      chosen.writeUInt32BE(subtype);
      client.write(chosen);
      expect((await reader.read(1, T, 'the answer'))[0]).toBe(0);
      expect((await closed)?.message).toMatch(new RegExp(`VeNCrypt sub-type ${subtype} is not offered`));
    });
  }

  it('takes the handshake a byte at a time (short reads)', async () => {
    const { client, reader } = serve();
    expect((await reader.read(12, T, 'the banner')).toString()).toBe('RFB 003.008\n');
    for (const byte of Buffer.from('RFB 003.008\n')) client.write(Buffer.from([byte]));
    await reader.read(2, T, 'the types');
    client.write(Buffer.from([19]));
    await reader.read(2, T, 'the version');
    client.write(Buffer.from([0]));
    client.write(Buffer.from([2]));
    await reader.read(6, T, 'ack and sub-types');
    for (const byte of [0, 0, 1, 5]) client.write(Buffer.from([byte]));
    expect((await reader.read(1, T, 'accepted'))[0]).toBe(1);
    await startTls(client, certPem);
  });

  it('hands bytes that came right behind the sub-type to TLS', async () => {
    const { client, reader } = serve();
    await chooseVencrypt(client, reader);
    await reader.read(2, T, 'the version');
    client.write(Buffer.from([0, 2]));
    await reader.read(6, T, 'ack and sub-types');
    // A client that starts TLS without waiting for the "accepted" byte: its ClientHello follows at once.
    const [tlsSide, wire] = duplexPair();
    const hello: Buffer[] = [];
    const socket = tls.connect({ socket: tlsSide, ca: certPem, checkServerIdentity: () => undefined });
    const firstFlight = await new Promise<Buffer>((resolve) => wire.once('data', resolve));
    hello.push(firstFlight);
    client.write(Buffer.concat([Buffer.from([0, 0, 1, 5]), ...hello]));
    expect((await reader.read(1, T, 'accepted'))[0]).toBe(1);
    client.removeAllListeners('data');
    client.pipe(wire).pipe(client);
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const challenge = await new ByteReader(socket).read(16, T, 'the challenge');
    expect(challenge.length).toBe(16);
  });

  it('refuses a viewer that does not trust the certificate, and one that sends no TLS at all', async () => {
    const other = (await selfSignedCertificate('other')).certPem;
    const wrongCa = serve();
    await negotiate(wrongCa.client, wrongCa.reader);
    await expect(startTls(wrongCa.client, other)).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    // A TLS 1.3 viewer judges the certificate after its Finished: the server just sees it leave.
    wrongCa.client.destroy();
    await wrongCa.closed;

    const garbage = serve();
    await negotiate(garbage.client, garbage.reader);
    garbage.client.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    expect((await garbage.closed)?.message).toMatch(/^TLS: /);
  });

  it('holds a wrong password inside TLS back, ever longer, per address', async () => {
    const backoff = new AuthBackoff({ firstMs: 20, maxMs: 10_000 });
    const holds: number[] = [];
    const attempt = async () => {
      const gate = backoff.gate('10.1.2.3:4000');
      const counted = { ...gate, failed: () => holds[holds.push(gate.failed()) - 1] };
      const { client, reader, closed } = serve({ authGate: counted });
      await negotiate(client, reader);
      const secure = await startTls(client, certPem);
      const inside = new ByteReader(secure);
      secure.write(expectedVncResponse('wrong-pw', await inside.read(16, T, 'the challenge')));
      expect((await inside.read(4, T, 'the SecurityResult')).readUInt32BE(0)).toBe(1);
      expect((await closed)?.message).toBe('wrong VNC password');
    };
    await attempt();
    while (backoff.heldBack('10.1.2.3:1')) await new Promise((resolve) => setTimeout(resolve, 5));
    await attempt();
    // Each wrong answer inside TLS is held back, the second twice as long as the first.
    expect(holds).toEqual([20, 40]);
  });
});

describe('plain VNC authentication from this machine (open: its browser viewer page speaks noVNC over loopback)', () => {
  const own = () => ['192.0.2.10', '2001:db8::10'];
  const offered = { context: tls.createSecureContext({}) };

  it('knows loopback and its own addresses from others, whatever form the peer has', () => {
    for (const peer of ['127.0.0.1:5000', '127.0.0.7:1', '[::1]:5000', '::ffff:127.0.0.1:9', '192.0.2.10:4000', '[2001:db8::10]:4000'])
      expect(isThisMachinePeer(peer, own), peer).toBe(true);
    for (const peer of ['192.0.2.11:4000', '[2001:db8::11]:4000', '10.127.0.1:80', undefined, ''])
      expect(isThisMachinePeer(peer, own), String(peer)).toBe(false);
  });

  it('is offered to a peer on this machine only when asked for, and never to the network', () => {
    expect(tlsForPeer(offered, '127.0.0.1:5000', true, own)).toBeUndefined();
    expect(tlsForPeer(offered, '192.0.2.10:5000', true, own)).toBeUndefined();
    expect(tlsForPeer(offered, '192.0.2.11:5000', true, own)).toBe(offered);
    expect(tlsForPeer(offered, undefined, true, own)).toBe(offered);
    expect(tlsForPeer(offered, '127.0.0.1:5000', false, own)).toBe(offered);
  });

  it('on such a server, a loopback client is offered plain VNC authentication alone (noVNC takes the first it knows), and the password opens it', async () => {
    const { client, reader, closed } = serve({ tls: tlsForPeer({ context }, '127.0.0.1:1', true, own) });
    await reader.read(12, T, 'the version');
    client.write('RFB 003.008\n');
    expect([...(await reader.read(2, T, 'the security types'))]).toEqual([1, 2]);
    client.write(Buffer.from([2]));
    client.write(expectedVncResponse(PASSWORD, await reader.read(16, T, 'the challenge')));
    expect((await reader.read(4, T, 'the SecurityResult')).readUInt32BE(0)).toBe(0);
    client.destroy();
    await closed;
  });
});
