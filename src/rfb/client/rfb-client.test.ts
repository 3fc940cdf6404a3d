import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serveHandshake, startScriptedServer, u32, update, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import { RfbClient } from '../../../test/support/rfb-client.js';
import { ConsoleEndedError } from '../../errors.js';
import { failure } from '../../../test/support/streams.js';
import { startDemoRfbServer } from '../demo/server.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { encodeServerInit } from '../wire/rfb-wire.js';
import { ENCODINGS, RfbConsoleClient, type RfbConsoleClientOptions } from './rfb-client.js';
import { MAX_CUT_TEXT_BYTES } from './server-messages.js';
import { NOTICE_HOLD_MS } from './update-requests.js';
import { vncAuthResponse } from '../wire/vnc-auth.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(script: (peer: RfbPeer) => Promise<void>) {
  const server = await startScriptedServer(script);
  cleanups.push(() => server.close());
  return server;
}

async function connect(script: (peer: RfbPeer) => Promise<void>, options?: RfbConsoleClientOptions) {
  const server = await serve(script);
  const fb = new Framebuffer(1, 1);
  const client = await RfbConsoleClient.connect(server.dial(), fb, options);
  cleanups.push(() => client.close());
  const closed = new Promise<Error | undefined>((resolve) => client.once('close', resolve));
  return { client, fb, server, closed };
}

/** What OpenSSL (its legacy provider, where DES lives) answers for a VNC challenge: an independent check of des.js. */
function opensslVncResponse(challenge: Buffer, key: Buffer): Buffer {
  const script = `const c=require('crypto').createCipheriv('des-ecb',Buffer.from(process.argv[1],'hex'),null);c.setAutoPadding(false);process.stdout.write(Buffer.concat([c.update(Buffer.from(process.argv[2],'hex')),c.final()]).toString('hex'))`;
  return Buffer.from(
    execFileSync(process.execPath, ['--openssl-legacy-provider', '-e', script, key.toString('hex'), challenge.toString('hex')], {
      encoding: 'utf8',
    }),
    'hex',
  );
}

describe('RfbConsoleClient against the demo RFB server', () => {
  it('draws the same picture a plain Raw client reads, and key events reach the server', async () => {
    // The demo's clock line shows the time: a second that flips between the two reads (a busy
    // machine) would make the pictures differ there. Its time stands still for this test.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T12:00:00Z') });
    cleanups.push(() => vi.useRealTimers());
    const demo = await startDemoRfbServer({ name: 'vm-demo', width: 320, height: 200 });
    cleanups.push(() => demo.close());
    const fb = new Framebuffer(1, 1);
    const client = await RfbConsoleClient.connect(net.connect(demo.port, '127.0.0.1'), fb);
    cleanups.push(() => client.close());
    expect([fb.width, fb.height, fb.name]).toEqual([320, 200, 'vm-demo']);
    await client.nextUpdate();
    // The demo serves through the hub's RFB server, which speaks ZRLE, the client's first choice
    // (and announces ExtendedDesktopSize, as QEMU does).
    expect([...client.encodingsSeen].sort()).toEqual(['extended-desktop-size', 'zrle']);
    const probe = await RfbClient.connect(net.connect(demo.port, '127.0.0.1'));
    cleanups.push(() => probe.close());
    probe.requestUpdate(false);
    await probe.readUpdate();
    expect(fb.pixels.equals(probe.frame)).toBe(true);

    // A key press repaints the demo screen's key line; the client follows incrementally.
    const before = Buffer.from(fb.pixels);
    client.key(true, 0x61);
    await client.nextUpdate();
    expect(fb.pixels.equals(before)).toBe(false);
  });
});

describe('RfbConsoleClient and the notices a console sends (updates of nothing but pseudo-encodings)', () => {
  /**
   * A console that answers the client's full request as QEMU does: the size at once, the pixels
   * when `sendPixels` is called. `requests()` counts the requests after the first.
   */
  async function qemuLike(name: string) {
    let peer: RfbPeer | undefined;
    const received: Buffer[] = [];
    const { client, fb } = await connect(async (p) => {
      peer = p;
      await serveHandshake(p, 4, 2, name);
      p.socket.on('data', (chunk: Buffer) => received.push(chunk));
      p.write(sizeNotice(4, 2));
    });
    await expect.poll(() => client.encodingsSeen.has('extended-desktop-size'), { timeout: 10_000 }).toBe(true);
    await client.idle();
    const requests = () => Buffer.concat(received).length / 10;
    const send = (bytes: Buffer) => peer!.write(bytes);
    const sendPixels = (w = 4, h = 2) => send(update([{ rect: { x: 0, y: 0, w, h }, encoding: 0, body: Buffer.alloc(w * h * 4, 0xff) }]));
    return { client, fb, requests, send, sendPixels };
  }

  /** ExtendedDesktopSize, reason and status 0: the screen is `w`x`h` (an echo, or a guest's new video mode). */
  function sizeNotice(w: number, h: number): Buffer {
    return update([{ rect: { x: 0, y: 0, w, h }, encoding: -308, body: Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(16)]) }]);
  }

  it('asks for nothing while the pixels are still due, then for the next update as they are drawn', async () => {
    const { client, requests, sendPixels } = await qemuLike('QEMU (default_vm-a)');
    // A bounded look is the only way to see that nothing is sent: well past the held request's wait.
    await new Promise((resolve) => setTimeout(resolve, NOTICE_HOLD_MS + 200));
    expect(requests()).toBe(0);
    sendPixels();
    await client.nextUpdate();
    await expect.poll(requests, { timeout: 10_000 }).toBe(1);
  });

  it("QEMU: a guest's new video mode brings no second request while one is pending, and its pixels bring one", async () => {
    const { client, fb, requests, send, sendPixels } = await qemuLike('QEMU (default_vm-a)');
    sendPixels();
    await client.nextUpdate();
    await expect.poll(requests, { timeout: 10_000 }).toBe(1);
    // The mode change: QEMU tells the new size at once and sends the screen for the pending request.
    send(sizeNotice(8, 4));
    await expect.poll(() => fb.width, { timeout: 10_000 }).toBe(8);
    await client.idle();
    await new Promise((resolve) => setTimeout(resolve, NOTICE_HOLD_MS + 200));
    expect(requests()).toBe(1);
    sendPixels(8, 4);
    await client.nextUpdate();
    await expect.poll(requests, { timeout: 10_000 }).toBe(2);
  });

  it('still asks again when no update follows the notice from a console not named QEMU (one whose whole answer it was)', async () => {
    const { requests } = await qemuLike('Xvnc');
    await expect.poll(requests, { timeout: 10_000 }).toBe(1);
  });
});

describe('RfbConsoleClient handshake', () => {
  it('asks for 32bpp B G R X, then the encodings in order with the pseudo-encodings, and a full update', async () => {
    let encodings: number[] = [];
    let format: Buffer | undefined;
    let request: Buffer | undefined;
    const server = await serve(async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.write([1, 1]);
      await peer.read(1);
      peer.write(u32(0));
      await peer.read(1);
      peer.write(encodeServerInit(64, 48, 'vm'));
      format = await peer.read(20);
      const count = (await peer.read(4)).readUInt16BE(2);
      const list = await peer.read(count * 4);
      encodings = Array.from({ length: count }, (_, i) => list.readInt32BE(i * 4));
      request = await peer.read(10);
    });
    const client = await RfbConsoleClient.connect(server.dial(), new Framebuffer(1, 1), { encodings: ['hextile', 'raw'] });
    cleanups.push(() => client.close());
    await expect.poll(() => request, { timeout: 10_000 }).toBeDefined();
    expect(format?.toString('hex')).toBe('00000000' + '2018000100ff00ff00ff100800000000');
    expect(encodings).toEqual([5, 0, -239, -223, -308, -224, -258]);
    expect(request?.toString('hex')).toBe('03000000000000400030');
  });

  it.each([
    ['3.3', 'RFB 003.003\n'],
    ['3.7', 'RFB 003.007\n'],
    ['3.5 (spoken as 3.3)', 'RFB 003.005\n'],
    ['3.889 (Apple; spoken as 3.8)', 'RFB 003.889\n'],
  ])('falls back for an RFB %s server', async (_, banner) => {
    let answered = '';
    const { fb } = await connect(async (peer) => {
      peer.write(banner);
      answered = (await peer.read(12)).toString('latin1');
      if (answered === 'RFB 003.003\n') {
        peer.write(u32(1));
      } else {
        peer.write([1, 1]);
        await peer.read(1);
        if (answered === 'RFB 003.008\n') peer.write(u32(0));
      }
      await peer.read(1);
      peer.write(encodeServerInit(40, 30, 'old'));
    });
    expect([fb.width, fb.height, fb.name]).toEqual([40, 30, 'old']);
    expect(answered).toBe(banner === 'RFB 003.889\n' ? 'RFB 003.008\n' : banner === 'RFB 003.005\n' ? 'RFB 003.003\n' : banner);
  });

  it('rejects what is not RFB 3.x with one clear line', async () => {
    const garbled = await serve(async (peer) => peer.write('SSH-2.0-Open\n'));
    expect((await failure(RfbConsoleClient.connect(garbled.dial(), new Framebuffer(1, 1)))).message).toBe(
      'the server does not speak RFB (it sent "SSH-2.0-Open")',
    );
    const newer = await serve(async (peer) => peer.write('RFB 004.001\n'));
    expect((await failure(RfbConsoleClient.connect(newer.dial(), new Framebuffer(1, 1)))).message).toBe(
      'RFB server speaks version 4.1; vconsole speaks 3.3 to 3.8',
    );
  });

  it('reports a refusal, unknown security types, and a server that hangs up', async () => {
    const refusing = await serve(async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.write(Buffer.concat([Buffer.from([0]), u32(9), Buffer.from('too many\x1b')]));
    });
    expect((await failure(RfbConsoleClient.connect(refusing.dial(), new Framebuffer(1, 1)))).message).toBe(
      'RFB server refused the connection: too many\\e',
    );
    const exotic = await serve(async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.write([2, 16, 19]);
    });
    expect((await failure(RfbConsoleClient.connect(exotic.dial(), new Framebuffer(1, 1)))).message).toBe(
      'RFB server offers security types 16, 19; vconsole supports None (1) and VNC Authentication (2)',
    );
    const hangingUp = await serve(async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.socket.end();
    });
    expect((await failure(RfbConsoleClient.connect(hangingUp.dial(), new Framebuffer(1, 1)))).message).toBe(
      'RFB server closed the connection',
    );
  });
});

describe("a SecurityResult failure's reason", () => {
  it("is kept, printable and capped, in the error: nova-novncproxy's own words when it cannot agree with the VM", async () => {
    const refusing = (reason: string) =>
      serve(async (peer) => {
        peer.write('RFB 003.008\n');
        await peer.read(12);
        peer.write([1, 1]);
        await peer.read(1);
        peer.write(Buffer.concat([u32(1), u32(Buffer.byteLength(reason, 'latin1')), Buffer.from(reason, 'latin1')]));
      });
    const nova = await refusing('Unable to negotiate security with server');
    const error = await failure(RfbConsoleClient.connect(nova.dial(), new Framebuffer(1, 1)));
    expect(error.message).toBe(
      "RFB server refused the connection after the security handshake: the console's proxy or VNC server said: Unable to negotiate security with server",
    );
    expect((error as { hint?: string }).hint).toMatch(/\[vnc\] auth_schemes/);
    const hostile = await refusing(`\x1b]0;owned\x07${'x'.repeat(5000)}`);
    const message = (await failure(RfbConsoleClient.connect(hostile.dial(), new Framebuffer(1, 1)))).message;
    expect(message).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(message).toContain('said: \\e]0;owned');
    expect(message.length).toBeLessThan(400);
  });
});

describe('a console that says how it ended', () => {
  it('is closed with that account (a websocket close reason), not a bare "RFB server closed the connection"', async () => {
    const server = await serve(async (peer) => {
      await serveHandshake(peer, 4, 4);
      peer.socket.end();
    });
    // What a websocket's stream does: its end, then a failure saying how it ended.
    const inner = server.dial();
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        inner.write(chunk, callback);
      },
      destroy(err, callback) {
        inner.destroy();
        callback(err);
      },
    });
    inner.on('data', (chunk: Buffer) => stream.push(chunk));
    inner.once('end', () => {
      stream.once('end', () => stream.destroy(new ConsoleEndedError('the console closed: Target closed (the VM stopped?)')));
      stream.push(null);
    });
    const client = await RfbConsoleClient.connect(stream, new Framebuffer(1, 1));
    cleanups.push(() => client.close());
    const closed = await new Promise<Error | undefined>((resolve) => client.once('close', resolve));
    expect(closed?.message).toBe('the console closed: Target closed (the VM stopped?)');
  });
});

describe('VNC authentication', () => {
  it('answers the challenge as OpenSSL DES does with the bit-reversed password', () => {
    const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    // 'secret1' -> bytes with their bits reversed; longer passwords count 8 bytes only.
    const key = Buffer.from(
      Buffer.from('secret1\0', 'latin1').map((b) => parseInt(b.toString(2).padStart(8, '0').split('').reverse().join(''), 2)),
    );
    expect(vncAuthResponse(challenge, 'secret1')).toEqual(opensslVncResponse(challenge, key));
    expect(vncAuthResponse(challenge, 'longpassword')).toEqual(vncAuthResponse(challenge, 'longpass'));
  });

  /** A 3.8 server offering only VNC authentication with `password`. */
  function lockedServer(password: string) {
    return async (peer: RfbPeer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.write([1, 2]);
      if ((await peer.read(1))[0] !== 2) return;
      const challenge = Buffer.from('fedcba98765432100123456789abcdef', 'hex');
      peer.write(challenge);
      const ok = (await peer.read(16)).equals(vncAuthResponse(challenge, password));
      if (!ok) {
        peer.write(Buffer.concat([u32(1), u32(21), Buffer.from('Authentication failed')]));
        peer.socket.end();
        return;
      }
      peer.write(u32(0));
      await peer.read(1);
      peer.write(encodeServerInit(32, 16, 'locked'));
    };
  }

  it('connects with the right password; refuses a wrong or missing one with a clear line that holds no secret', async () => {
    const server = await serve(lockedServer('hunter22'));
    const fb = new Framebuffer(1, 1);
    const client = await RfbConsoleClient.connect(server.dial(), fb, { password: 'hunter22' });
    cleanups.push(() => client.close());
    expect(fb.name).toBe('locked');
    const wrong = await failure(RfbConsoleClient.connect(server.dial(), new Framebuffer(1, 1), { password: 'hunter2' }));
    expect(wrong.message).toBe('VNC authentication failed: wrong password');
    const none = await failure(RfbConsoleClient.connect(server.dial(), new Framebuffer(1, 1)));
    expect(none.message).toBe('RFB server asks for a VNC password and none was given');
    expect(JSON.stringify([wrong, none, wrong.stack, none.stack])).not.toContain('hunter');
  });
});

describe('RfbConsoleClient server messages and input', () => {
  it('emits bell and Latin-1 clipboard text, and sends key, QEMU key, pointer and clipboard messages', async () => {
    let sent: Buffer | undefined;
    const { client } = await connect(async (peer) => {
      await serveHandshake(peer, 8, 8, 'QEMU');
      peer.write(Buffer.concat([Buffer.from([2]), Buffer.from([3, 0, 0, 0]), u32(4), Buffer.from([0x63, 0x61, 0x66, 0xe9])]));
      // QEMU's ack of its key events comes unasked: the client asks for no update after it.
      peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: ENCODINGS['qemu-extended-key'] }]));
      sent = await peer.read(8 + 12 + 8 + 12 + 6 + 8 + 3);
    });
    const bell = new Promise<void>((resolve) => client.once('bell', resolve));
    const text = new Promise<string>((resolve) => client.once('clipboard', resolve));
    expect(client.supportsQemuKeys).toBe(false);
    await expect.poll(() => client.supportsQemuKeys, { timeout: 10_000 }).toBe(true);
    await bell;
    expect(await text).toBe('café');
    expect(client.supportsQemuKeys).toBe(true);
    client.key(true, 0xff0d);
    client.qemuKey(true, 0x61, 0x1e);
    client.key(false, 0xff0d);
    client.qemuKey(false, 0x61, 0x1e);
    client.pointer(5, 300, 2);
    client.clipboard('hé€');
    await expect.poll(() => sent, { timeout: 10_000 }).toBeDefined();
    expect(sent?.toString('hex')).toBe(
      [
        '040100000000ff0d',
        'ff00000100000061' + '0000001e',
        '040000000000ff0d',
        'ff00000000000061' + '0000001e',
        '0505012c0002',
        '06000000' + '00000003',
        '68e93f',
      ].join(''),
    );
  });

  it.each([
    [
      'a rectangle beyond the screen',
      update([{ rect: { x: 4, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(256) }]),
      'RFB server broke the protocol: 8x8 rectangle at 4,0 lies outside the 8x8 screen',
    ],
    ['an unknown message type', Buffer.from([77]), 'RFB server broke the protocol: unknown server message type 77'],
    [
      'an encoding it did not ask for',
      update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 21 }]),
      'RFB server broke the protocol: rectangle in encoding 21, which vconsole did not ask for',
    ],
    [
      'a huge Zlib length',
      update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 6, body: u32(0xffffffff) }]),
      'RFB server broke the protocol: Zlib rectangle announces 4294967295 bytes of data, more than its size allows (1285)',
    ],
    [
      'a garbled zlib stream',
      update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 16, body: Buffer.concat([u32(4), Buffer.from('junk')]) }]),
      'RFB server broke the protocol: compressed data does not start with a zlib header',
    ],
  ])('closes with one clear line on %s, and rejects waiting updates', async (_, bad, message) => {
    const { client, closed } = await connect(async (peer) => {
      await serveHandshake(peer, 8, 8);
      peer.write(bad);
    });
    const waiting = failure(client.nextUpdate());
    const error = await closed;
    expect(error?.message).toBe(message);
    expect((await waiting).message).toBe(message);
    await expect(client.nextUpdate()).rejects.toThrow(message);
  });

  it('drops a ServerCutText over 1 MiB as it arrives and keeps the session: the clipboard after it and the picture still come', async () => {
    const big = MAX_CUT_TEXT_BYTES + 1;
    const { client, fb, closed } = await connect(async (peer) => {
      await serveHandshake(peer, 8, 8);
      peer.write(Buffer.concat([Buffer.from([3, 0, 0, 0]), u32(big)]));
      // In pieces, as a big message comes off the wire.
      for (let sent = 0; sent < big; sent += 64 * 1024) peer.write(Buffer.alloc(Math.min(64 * 1024, big - sent), 0x41));
      peer.write(Buffer.concat([Buffer.from([3, 0, 0, 0]), u32(2), Buffer.from('ok')]));
      peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(256, 0xff) }]));
    });
    const texts: string[] = [];
    client.on('clipboard', (text) => texts.push(text));
    let ended = false;
    void closed.then(() => (ended = true));
    await client.nextUpdate();
    expect(texts).toEqual(['ok']);
    expect(fb.pixels.readUInt32LE(0) & 0xffffff).toBe(0xffffff);
    expect(ended).toBe(false);
  });

  it('close() ends the session with no error and the stream is destroyed', async () => {
    const { client, closed } = await connect(async (peer) => {
      await serveHandshake(peer, 8, 8);
    });
    client.close();
    expect(await closed).toBeUndefined();
  });
});

describe('the pseudo-encodings a hub relays', () => {
  it('reads LED state and pointer motion change rectangles even unasked, as the replay of a hub-recorded session meets them', async () => {
    const { client, fb } = await connect(async (peer) => {
      await serveHandshake(peer, 2, 1);
      peer.write(
        update([
          { rect: { x: 0, y: 0, w: 0, h: 0 }, encoding: -261, body: Buffer.from([4]) },
          { rect: { x: 0, y: 0, w: 0, h: 0 }, encoding: -257 },
          { rect: { x: 0, y: 0, w: 2, h: 1 }, encoding: 0, body: Buffer.from([1, 2, 3, 0, 4, 5, 6, 0]) },
        ]),
      );
    });
    const modes: boolean[] = [];
    client.on('pointerMode', (absolute) => modes.push(absolute));
    await client.nextUpdate();
    expect([client.isClosed, client.indicators, modes]).toEqual([false, { ledState: 4, absolutePointer: false }, [false]]);
    expect([...fb.pixels]).toEqual([1, 2, 3, 0, 4, 5, 6, 0]);
  });
});
