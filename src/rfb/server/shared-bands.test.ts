import net from 'node:net';
import jpeg from 'jpeg-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RfbClient, type RfbClientOptions } from '../../../test/support/rfb-client.js';
import { waitFor } from '../../../test/support/wait.js';
import { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import { PixelPacker } from '../wire/pixel-values.js';
import { NATIVE_FORMAT } from '../wire/rfb-wire.js';
import { ENCODERS } from './encoders/index.js';
import { serveClient, type RfbServerOptions } from './rfb-server.js';
import { sharedBandsOf } from './shared-bands.js';
import { ENCODING, encodeUpdate, type ChosenEncoder } from './update.js';
import { RGB565 } from '../../../test/support/pixel-formats.js';

// Ten viewers of one console should cost little more than one: a band of the picture that
// several clients are sent in one pixel format and a stateless encoding is encoded once, and
// never handed out after a write into it, nor to a client of another format or console.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  vi.restoreAllMocks();
});

/** A picture of many colours, so that no encoding makes it small by accident. */
function gradient(width: number, height: number): Framebuffer {
  const fb = new Framebuffer(width, height, 'shared');
  const pixels = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i += 1)
    pixels.writeUInt32LE(((i * 37) & 0xff) | (((i * 13) & 0xff) << 8) | ((i & 0xff) << 16), i * 4);
  fb.putPixels({ x: 0, y: 0, w: width, h: height }, pixels);
  return fb;
}

/** A client of `options.framebuffer` over real TCP, through its handshake and first full update. */
async function servedClient(options: RfbServerOptions, clientOptions: RfbClientOptions) {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const served = await accepted;
  const connection = serveClient(served, options);
  cleanups.push(() => {
    connection.close();
    socket.destroy();
    server.close();
  });
  const peer = await RfbClient.connect(socket, clientOptions);
  peer.requestUpdate(false);
  await peer.readUpdate();
  return { peer, socket, served };
}

type Client = Awaited<ReturnType<typeof servedClient>>;

/** Every client asks for an incremental update, and the server has read each request: then `draw` runs. */
async function drawOnceAllAsked(clients: Client[], draw: () => void): Promise<void> {
  const before = clients.map((c) => c.served.bytesRead);
  for (const c of clients) c.peer.requestUpdate(true);
  // A FramebufferUpdateRequest is 10 bytes.
  await waitFor(() => clients.every((c, i) => c.served.bytesRead === before[i] + 10), 'the update requests read');
  draw();
  await Promise.all(clients.map((c) => c.peer.readUpdate()));
}

const framebufferOptions = (framebuffer: Framebuffer): RfbServerOptions => ({
  framebuffer,
  input: { key: () => undefined, pointer: () => undefined, clipboard: () => undefined },
});

describe('bands shared by the clients of one framebuffer', () => {
  it('sends ten Raw clients in one format byte-identical updates, each band encoded once', async () => {
    const fb = gradient(150, 100);
    const options = framebufferOptions(fb);
    const clients: Client[] = [];
    for (let i = 0; i < 10; i += 1) clients.push(await servedClient(options, { encodings: [ENCODING.raw] }));
    const received = clients.map(() => [] as Buffer[]);
    clients.forEach((c, i) => c.socket.on('data', (chunk: Buffer) => received[i].push(chunk)));
    const rawBytes = vi.spyOn(PixelPacker.prototype, 'rawBytes');
    await drawOnceAllAsked(clients, () => {
      fb.fill({ x: 10, y: 20, w: 100, h: 30 }, 0xabcdef);
      fb.damage({ x: 10, y: 20, w: 100, h: 30 });
    });
    // 100 x 30 pixels are one band of Raw.
    expect(rawBytes).toHaveBeenCalledTimes(1);
    const first = Buffer.concat(received[0]);
    expect(first.length).toBe(4 + 12 + 100 * 30 * 4);
    for (const bytes of received) expect(Buffer.concat(bytes)).toEqual(first);
    const colour = fb.read({ x: 10, y: 20, w: 1, h: 1 }).readUInt32LE(0) & 0xffffff;
    for (const c of clients) expect(c.peer.values[25 * 150 + 50]).toBe(colour);
  });

  it('encodes Hextile once for all its clients, and ZRLE (each client its own zlib stream) once for each', async () => {
    const fb = gradient(96, 64);
    const options = framebufferOptions(fb);
    const clients: Client[] = [];
    for (const encoding of [ENCODING.hextile, ENCODING.hextile, ENCODING.hextile, ENCODING.zrle, ENCODING.zrle])
      clients.push(await servedClient(options, { encodings: [encoding] }));
    const bandsRead = vi.spyOn(PixelPacker.prototype, 'rectValues');
    await drawOnceAllAsked(clients, () => {
      fb.fill({ x: 0, y: 16, w: 96, h: 16 }, 0x102030);
      fb.damage({ x: 0, y: 16, w: 96, h: 16 });
    });
    expect(bandsRead).toHaveBeenCalledTimes(1 + 2);
    const picture = [...new Uint32Array(fb.read({ x: 0, y: 0, w: 96, h: 64 }).buffer)].map((v) => v & 0xffffff);
    for (const c of clients) expect([...c.peer.values]).toEqual(picture);
  });
});

describe('SharedBands', () => {
  /** A framebuffer two clients are sent, as the server's connections tell it. */
  function sharedBy2(fb: Framebuffer) {
    const shared = sharedBandsOf(fb);
    shared.joined();
    shared.joined();
    cleanups.push(() => {
      shared.left();
      shared.left();
    });
    return shared;
  }

  function rawEncoder(): ChosenEncoder {
    const encoder = ENCODERS.find((kind) => kind.encoding === ENCODING.raw)?.create?.({});
    if (!encoder) throw new Error('no Raw encoder');
    return { encoding: ENCODING.raw, encoder };
  }

  const update = async (fb: Framebuffer, rects: Rect[], format = NATIVE_FORMAT) =>
    Buffer.concat(await encodeUpdate({ rects }, fb, new PixelPacker(format), rawEncoder()));

  it('encodes a band again for the next client once a row of it was written, and keeps bands no write touched', async () => {
    const fb = gradient(64, 32);
    sharedBy2(fb);
    const top = { x: 0, y: 0, w: 64, h: 16 };
    const bottom = { x: 0, y: 16, w: 64, h: 16 };
    const rawBytes = vi.spyOn(PixelPacker.prototype, 'rawBytes');
    const first = await update(fb, [top, bottom]);
    expect(rawBytes).toHaveBeenCalledTimes(2);
    // A write with no damage yet (a decoder part-way through a rectangle) is seen all the same.
    fb.fill({ x: 5, y: 20, w: 1, h: 1 }, 0x00ff00);
    const second = await update(fb, [top, bottom]);
    expect(rawBytes).toHaveBeenCalledTimes(3);
    expect(second).not.toEqual(first);
    const pixelAt = 4 + 12 + 64 * 16 * 4 + 12 + (4 * 64 + 5) * 4;
    expect(second.readUInt32LE(pixelAt)).toBe(0x00ff00);
    expect(second.subarray(0, pixelAt)).toEqual(first.subarray(0, pixelAt));
  });

  it('encodes once for each pixel format, and never hands one console the bytes of another', async () => {
    const a = gradient(32, 8);
    const b = new Framebuffer(32, 8);
    b.fill({ x: 0, y: 0, w: 32, h: 8 }, 0x445566);
    sharedBy2(a);
    sharedBy2(b);
    // A third of the picture in each format: both fit the bound of one picture's bytes.
    const third = [{ x: 0, y: 0, w: 32, h: 3 }];
    const rawBytes = vi.spyOn(PixelPacker.prototype, 'rawBytes');
    const [native, rgb565, again, other] = [
      await update(a, third),
      await update(a, third, RGB565),
      await update(a, third),
      await update(b, third),
    ];
    expect(rawBytes).toHaveBeenCalledTimes(3);
    expect(again).toEqual(native);
    expect(rgb565.length).toBe(4 + 12 + 32 * 3 * 2);
    expect(other.readUInt32LE(4 + 12)).toBe(0x445566);
  });

  it("makes Tight's JPEG pictures once for the clients of one quality and format", async () => {
    const fb = new Framebuffer(128, 32);
    // A smooth many-coloured picture: what Tight sends as JPEG when a quality is asked for.
    for (let y = 0; y < 64; y += 1)
      for (let x = 0; x < 256; x += 1) fb.fill({ x, y, w: 1, h: 1 }, (x << 16) | ((y * 4) << 8) | ((x + y) & 0x7f));
    sharedBy2(fb);
    const tight = () => {
      const encoder = ENCODERS.find((kind) => kind.name === 'tight')?.create?.({ jpegQuality: 8 });
      if (!encoder) throw new Error('no Tight encoder');
      cleanups.push(() => encoder.close());
      return { encoding: ENCODING.tight, encoder };
    };
    const whole = { rects: [{ x: 0, y: 0, w: 128, h: 32 }] };
    const pictures = vi.spyOn(jpeg, 'encode');
    const first = Buffer.concat(await encodeUpdate(whole, fb, new PixelPacker(NATIVE_FORMAT), tight()));
    const made = pictures.mock.calls.length;
    expect(made).toBeGreaterThan(0);
    const second = Buffer.concat(await encodeUpdate(whole, fb, new PixelPacker(NATIVE_FORMAT), tight()));
    expect(pictures).toHaveBeenCalledTimes(made);
    expect(second).toEqual(first);
    // A client in another format gets pictures of its own.
    await encodeUpdate(whole, fb, new PixelPacker(RGB565), tight());
    expect(pictures.mock.calls.length).toBeGreaterThan(made);
  });

  it("holds a picture's bytes at most, nothing once fewer than two clients share it, and lets go of what nobody takes", async () => {
    const fb = gradient(64, 64);
    const shared = sharedBy2(fb);
    await update(fb, [{ x: 0, y: 0, w: 64, h: 64 }]);
    await update(fb, [{ x: 0, y: 0, w: 64, h: 8 }]);
    // 64 x 64 x 4 bytes are the bound: the whole picture's band went for the new one.
    expect(shared.size).toBe(1);
    await waitFor(() => shared.size === 0, 'the unused band dropped');
    await update(fb, [{ x: 0, y: 8, w: 64, h: 8 }]);
    expect(shared.size).toBe(1);
    shared.left();
    expect(shared.size).toBe(0);
    shared.joined();
  });
});
