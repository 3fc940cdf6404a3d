import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/streams.js';
import { ByteReader, RfbClient, expectedVncResponse, type RfbClientOptions } from '../../../test/support/rfb-client.js';
import { waitFor } from '../../../test/support/wait.js';
import { AuthBackoff } from './auth-backoff.js';
import { CLIENT_UPDATE_MAX_PIXELS } from '../../limits.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { NATIVE_FORMAT, encodePixelFormat, type PixelFormat } from '../wire/rfb-wire.js';
import { ClientDroppedError, serveClient, type ClientInput, type RfbServerOptions, type ServedClient } from './rfb-server.js';
import { RGB565 } from '../../../test/support/pixel-formats.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Recorded extends ClientInput {
  events: string[];
}

function recorder(): Recorded {
  const events: string[] = [];
  return {
    events,
    key: (down, keysym) => events.push(`key ${down ? 'down' : 'up'} ${keysym.toString(16)}`),
    qemuKey: (down, keysym, keycode) => events.push(`qemu ${down ? 'down' : 'up'} ${keysym.toString(16)} ${keycode}`),
    pointer: (buttons, x, y) => events.push(`pointer ${buttons} ${x},${y}`),
    clipboard: (text) => events.push(`clipboard ${text.length > 20 ? `${text.length} chars` : text}`),
  };
}

/** A picture with solid areas, two-colour stripes and a many-coloured gradient, at an odd size. */
function painted(width = 150, height = 100): Framebuffer {
  const fb = new Framebuffer(width, height, 'vm-hub');
  fb.fill({ x: 0, y: 0, w: width, h: height }, 0x1b2838);
  for (let x = 0; x < 40; x += 4) fb.fill({ x, y: 10, w: 2, h: 30 }, 0xffc857);
  const gradient = Buffer.alloc(100 * 40 * 4);
  for (let i = 0; i < 100 * 40; i += 1)
    gradient.writeUInt32LE(((i * 37) & 0xff) | (((i * 13) & 0xff) << 8) | (((i * 7) & 0xff) << 16), i * 4);
  fb.putPixels({ x: 45, y: 50, w: 100, h: 40 }, gradient);
  fb.fill({ x: 30, y: 15, w: 3, h: 3 }, 0x7ee081);
  const stripes = [0xf2f4f8, 0x9fb3c8, 0x6c7f93];
  for (let x = 0; x < 40; x += 1) fb.fill({ x, y: 50, w: 1, h: 50 }, stripes[x % 3]);
  return fb;
}

/** ZRLE tiles that suit a palette: 1-pixel stripes of 3 colours, bands of 20 colours. */
function paletteTiles(): Framebuffer {
  // 62 columns of 2-bit indexes leave a part-filled byte at the end of each packed row.
  const fb = new Framebuffer(126, 70, 'palette');
  for (let x = 64; x < 126; x += 1) fb.fill({ x, y: 0, w: 1, h: 70 }, [0xff0000, 0x00ff00, 0x0000ff][x % 3]);
  for (let y = 0; y < 70; y += 1) fb.fill({ x: 0, y, w: 64, h: 1 }, 0x10 * (y % 20) + 0x0a0b00);
  fb.fill({ x: 6, y: 3, w: 1, h: 1 }, 0xffffff);
  return fb;
}

/** The framebuffer's pixels as `format` values, computed here from the channel maths of RFC 6143. */
function expected(fb: Framebuffer, format: PixelFormat): number[] {
  const out: number[] = [];
  const px = fb.pixels;
  for (let i = 0; i < fb.width * fb.height; i += 1) {
    const [b, g, r] = [px[i * 4], px[i * 4 + 1], px[i * 4 + 2]];
    const scale = (v: number, max: number) => Math.round((v * max) / 255);
    out.push(
      scale(r, format.redMax) * 2 ** format.redShift +
        scale(g, format.greenMax) * 2 ** format.greenShift +
        scale(b, format.blueMax) * 2 ** format.blueShift,
    );
  }
  return out;
}

interface Served {
  connection: ServedClient;
  socket: net.Socket;
  closed: Promise<Error | undefined>;
}

/** A real TCP connection whose server end is served by serveClient. */
async function connectClient(options: RfbServerOptions): Promise<Served & { client: net.Socket }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const accepted = new Promise<Served>((resolve) =>
    server.once('connection', (socket) => {
      const connection = serveClient(socket, options);
      resolve({ connection, socket, closed: new Promise((done) => connection.once('close', done)) });
    }),
  );
  const client = net.connect(port, '127.0.0.1');
  cleanups.push(() => {
    client.destroy();
    server.close();
  });
  const served = await accepted;
  cleanups.push(() => served.connection.close());
  return { ...served, client };
}

async function handshaken(options: RfbServerOptions, clientOptions: RfbClientOptions = {}) {
  const served = await connectClient(options);
  const client = await RfbClient.connect(served.client, clientOptions);
  return { ...served, peer: client };
}

async function fullUpdate(client: RfbClient) {
  client.requestUpdate(false);
  return client.readUpdate();
}

describe('serveClient handshake and security', () => {
  for (const version of ['3.3', '3.7', '3.8'] as const) {
    it(`serves an RFB ${version} client with security None`, async () => {
      const fb = painted();
      const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { version });
      expect([client.width, client.height, client.name]).toEqual([150, 100, 'vm-hub']);
      await fullUpdate(client);
      expect([...client.values]).toEqual(expected(fb, NATIVE_FORMAT));
    });

    it(`accepts the right VNC password at RFB ${version}`, async () => {
      const fb = painted();
      const { peer: client } = await handshaken(
        { framebuffer: fb, input: recorder(), password: 'sesame-long-pw' },
        { version, password: 'sesame-l' },
      );
      await fullUpdate(client);
      expect([...client.values]).toEqual(expected(fb, NATIVE_FORMAT));
    });
  }

  it('refuses a wrong VNC password with a reason at 3.8 and reports it', async () => {
    let failures = 0;
    const served = await connectClient({
      framebuffer: painted(),
      input: recorder(),
      password: 'sesame',
      onAuthFailure: () => (failures += 1),
    });
    const err = await failure(RfbClient.connect(served.client, { password: 'sesamE' }));
    expect(err.message).toBe('security failed: authentication failed');
    expect(failures).toBe(1);
    expect((await served.closed)?.message).toMatch(/wrong VNC password/);
  });

  it('refuses a client that picks a security type it was not offered, with the reason', async () => {
    const served = await connectClient({ framebuffer: painted(), input: recorder(), password: 'sesame' });
    const reader = new ByteReader(served.client);
    await reader.read(12, 5000, 'the banner');
    served.client.write('RFB 003.008\n');
    expect([...(await reader.read(2, 5000, 'the security types'))]).toEqual([1, 2]);
    served.client.write(Buffer.from([1]));
    const result = await reader.read(4, 5000, 'the SecurityResult');
    const reason = await reader.read((await reader.read(4, 5000, 'the reason length')).readUInt32BE(0), 5000, 'the reason');
    expect([result.readUInt32BE(0), reason.toString()]).toEqual([1, 'security type 1 is not offered (only 2)']);
    expect((await served.closed)?.message).toBe('RFB viewer: security type 1 is not offered (only 2); the viewer was disconnected');
  });

  it("holds a wrong password's answer for the back-off, and refuses the address at once meanwhile, unchecked", async () => {
    // The back-off's clock stands still until the answer came, so the second connection is inside
    // the hold however long a busy machine takes to make it; the answer's hold is a real timer.
    let clock = Date.now();
    const backoff = new AuthBackoff({ firstMs: 800, now: () => clock });
    const options = () => ({ framebuffer: painted(), input: recorder(), password: 'sesame', authGate: backoff.gate('10.0.0.9:1000') });
    const wrong = await connectClient(options());
    const sentAt = Date.now();
    const answered = failure(RfbClient.connect(wrong.client, { password: 'sesamE' })).then((err) => ({ err, ms: Date.now() - sentAt }));
    await waitFor(() => backoff.gate('10.0.0.9:1').wait() > 0, 'the address held back');
    // Meanwhile the right password from the same address is refused fast, before any challenge.
    const held = await connectClient(options());
    const heldErr = await failure(RfbClient.connect(held.client, { password: 'sesame' }));
    expect(heldErr.message).toMatch(/too many wrong passwords from this address: try again in 1 s/);
    const { err, ms } = await answered;
    expect(err.message).toBe('security failed: authentication failed');
    expect(ms).toBeGreaterThanOrEqual(700);
    expect(backoff.gate('10.0.0.9:1').wait()).toBe(800);
    clock += 800;
    expect(backoff.gate('10.0.0.9:1').wait()).toBe(0);
    const { peer: good } = await handshaken(options(), { password: 'sesame' });
    await fullUpdate(good);
  });

  it('refuses a wrong VNC password at 3.7 without a reason string', async () => {
    const served = await connectClient({ framebuffer: painted(), input: recorder(), password: 'sesame' });
    const err = await failure(RfbClient.connect(served.client, { version: '3.7', password: 'other' }));
    expect(err.message).toBe('security failed: no reason');
  });
});

describe('serveClient pixels and encodings', () => {
  it('converts to a 16bpp client format', async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format: RGB565 });
    await fullUpdate(client);
    expect([...client.values]).toEqual(expected(fb, RGB565));
  });

  it("sends a client in the framebuffer's own format its bytes as Raw, unchanged", async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format: NATIVE_FORMAT, encodings: [0] });
    await fullUpdate(client);
    expect(Buffer.from(client.values.buffer).equals(fb.pixels)).toBe(true);
  });

  it('clears the padding byte an upstream left in the framebuffer, for Raw and ZRLE alike', async () => {
    const fb = painted();
    for (let at = 3; at < fb.pixels.length; at += 8) fb.pixels[at] = 0xff;
    const colours = expected(fb, NATIVE_FORMAT);
    for (const encoding of [0, 16]) {
      const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format: NATIVE_FORMAT, encodings: [encoding] });
      await fullUpdate(client);
      expect([...client.values]).toEqual(colours);
    }
  });

  it('serves an 8bpp colour-map client from the 3-3-2 palette it sends', async () => {
    const fb = painted();
    const colourMap: PixelFormat = { ...NATIVE_FORMAT, bitsPerPixel: 8, depth: 8, trueColour: false };
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format: colourMap, encodings: [5] });
    await fullUpdate(client);
    const palette: PixelFormat = {
      ...colourMap,
      trueColour: true,
      redMax: 7,
      greenMax: 7,
      blueMax: 3,
      redShift: 0,
      greenShift: 3,
      blueShift: 6,
    };
    expect(client.colourMaps).toBe(1);
    expect([...client.values]).toEqual(expected(fb, palette));
  });

  const cases: Array<[string, number, PixelFormat]> = [
    ['Hextile', 5, NATIVE_FORMAT],
    ['Hextile', 5, RGB565],
    ['ZRLE', 16, NATIVE_FORMAT],
    ['ZRLE', 16, RGB565],
    ['ZRLE', 16, { ...NATIVE_FORMAT, bigEndian: true }],
    ['Raw', 0, { ...RGB565, bigEndian: true }],
  ];
  for (const [name, encoding, format] of cases) {
    it(`${name} at ${format.bitsPerPixel}bpp${format.bigEndian ? ' big-endian' : ''} decodes back to the framebuffer, update after update`, async () => {
      const fb = painted();
      const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format, encodings: [encoding, 0] });
      const rects = await fullUpdate(client);
      expect(rects.map((r) => r.encoding)).toEqual([encoding]);
      expect([...client.values]).toEqual(expected(fb, format));
      // A second update on the same (ZRLE: zlib) stream.
      fb.fill({ x: 20, y: 20, w: 90, h: 70 }, 0x3d8bd4);
      fb.fill({ x: 30, y: 30, w: 5, h: 50 }, 0xf2f4f8);
      fb.damage({ x: 20, y: 20, w: 90, h: 70 });
      client.requestUpdate(true);
      await client.readUpdate();
      expect([...client.values]).toEqual(expected(fb, format));
    });
  }

  for (const [encoding, format] of [
    [16, NATIVE_FORMAT],
    [16, RGB565],
    [5, NATIVE_FORMAT],
  ] as const) {
    it(`encoding ${encoding} at ${format.bitsPerPixel}bpp decodes palette tiles`, async () => {
      const fb = paletteTiles();
      const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format, encodings: [encoding] });
      await fullUpdate(client);
      expect([...client.values]).toEqual(expected(fb, format));
    });
  }

  it("ZRLE decodes tiles at the palette's limits: 16, 17, 127 and 128 colours in runs", async () => {
    const fb = new Framebuffer(256, 64, 'limits');
    [16, 17, 127, 128].forEach((colours, tile) => {
      for (let i = 0; i < 64 * 64; i += 1) {
        const colour = Math.floor(i / 3) % colours;
        fb.fill({ x: tile * 64 + (i % 64), y: Math.floor(i / 64), w: 1, h: 1 }, (colour * 0x2a0b05) & 0xffffff);
      }
    });
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { format: NATIVE_FORMAT, encodings: [16] });
    await fullUpdate(client);
    expect([...client.values]).toEqual(expected(fb, NATIVE_FORMAT));
  });

  it('answers incremental requests with the damaged areas only', async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() });
    await fullUpdate(client);
    fb.fill({ x: 10, y: 60, w: 8, h: 8 }, 0xff0000);
    fb.damage({ x: 10, y: 60, w: 8, h: 8 });
    fb.fill({ x: 100, y: 10, w: 4, h: 4 }, 0x00ff00);
    fb.damage({ x: 100, y: 10, w: 4, h: 4 });
    client.requestUpdate(true);
    const rects = await client.readUpdate();
    expect(rects.map(({ x, y, w, h }) => ({ x, y, w, h })).sort((a, b) => a.x - b.x)).toEqual([
      { x: 10, y: 60, w: 8, h: 8 },
      { x: 100, y: 10, w: 4, h: 4 },
    ]);
    expect([...client.values]).toEqual(expected(fb, NATIVE_FORMAT));
  });

  it('sends the cursor shape to clients that asked for it', async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { encodings: [0, -239] });
    await fullUpdate(client);
    const pixels = Buffer.alloc(2 * 2 * 4, 0xff);
    fb.setCursor({ width: 2, height: 2, hotX: 1, hotY: 0, pixels, mask: Buffer.from([0x80, 0x40]) });
    client.requestUpdate(true);
    const rects = await client.readUpdate();
    expect(rects).toEqual([{ x: 1, y: 0, w: 2, h: 2, encoding: -239 }]);
    expect([...(client.cursor?.mask ?? [])]).toEqual([0x80, 0x40]);
  });
});

describe('serveClient on a huge screen', () => {
  it('sends a screen above the per-update cap over several updates as the client asks, whole in the end', async () => {
    const [width, height] = [4000, 2500];
    const fb = new Framebuffer(width, height, 'huge');
    for (let y = 0; y < height; y += 50) fb.fill({ x: 0, y, w: width, h: 50 }, (y * 2654435761) & 0xffffff);
    for (let x = 0; x < width; x += 333) fb.fill({ x, y: 0, w: 7, h: height }, 0xffffff - x);
    const { peer: client } = await handshaken(
      { framebuffer: fb, input: recorder() },
      { format: NATIVE_FORMAT, encodings: [16], timeoutMs: 30_000 },
    );
    const area = (rects: Array<{ w: number; h: number }>) => rects.reduce((sum, r) => sum + r.w * r.h, 0);
    let sent = area(await fullUpdate(client));
    expect(sent, 'pixels in the first update').toBeLessThanOrEqual(CLIENT_UPDATE_MAX_PIXELS);
    while (sent < width * height) {
      client.requestUpdate(true);
      sent += area(await client.readUpdate());
    }
    expect(sent, 'every pixel, once').toBe(width * height);
    const want = expected(fb, NATIVE_FORMAT);
    for (let i = 0; i < width * height; i += 1) if (client.values[i] !== want[i]) expect(client.values[i], `pixel ${i}`).toBe(want[i]);
  }, 60_000);
});

describe('serveClient resize', () => {
  it('tells DesktopSize clients the new size and sends the whole new picture', async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() }, { encodings: [16, -223] });
    await fullUpdate(client);
    client.requestUpdate(true);
    fb.resize(70, 40);
    fb.fill({ x: 0, y: 0, w: 70, h: 40 }, 0x123456);
    fb.damage({ x: 0, y: 0, w: 70, h: 40 });
    const rects = await client.readUpdate();
    expect(rects[0]).toEqual({ x: 0, y: 0, w: 70, h: 40, encoding: -223 });
    expect([client.width, client.height]).toEqual([70, 40]);
    expect([...client.values]).toEqual(expected(fb, NATIVE_FORMAT));
  });

  it('gives clients without DesktopSize a full update of what fits their old size', async () => {
    const fb = painted();
    const { peer: client } = await handshaken({ framebuffer: fb, input: recorder() });
    await fullUpdate(client);
    fb.resize(200, 60);
    fb.fill({ x: 0, y: 0, w: 200, h: 60 }, 0x654321);
    client.requestUpdate(true);
    const rects = await client.readUpdate();
    expect(rects).toEqual([{ x: 0, y: 0, w: 150, h: 60, encoding: 0 }]);
    expect([client.width, client.height]).toEqual([150, 100]);
  });
});

describe('serveClient input and connections', () => {
  it('forwards keys, pointer, clipboard and QEMU extended keys', async () => {
    const input = recorder();
    const { peer: client } = await handshaken({ framebuffer: painted(), input }, { encodings: [0, -258] });
    await fullUpdate(client);
    expect(client.qemuKeyAcked).toBe(true);
    client.sendKey(0x61, true);
    client.sendPointer(1, 12, 34);
    client.sendCutText('hello');
    client.sendQemuKey(0x62, 48, false);
    await waitFor(() => input.events.length === 4, 'four input events');
    expect(input.events).toEqual(['key down 61', 'pointer 1 12,34', 'clipboard hello', 'qemu up 62 48']);
  });

  it('drops clipboard text over 1 MiB and goes on', async () => {
    const input = recorder();
    const { peer: client } = await handshaken({ framebuffer: painted(), input });
    client.sendCutText(Buffer.alloc((1 << 20) + 1, 0x41));
    client.sendKey(0x20, true);
    await waitFor(() => input.events.length === 1, 'the key after the cut text');
    expect(input.events).toEqual(['key down 20']);
  });

  it('drops all input from a view-only client but still updates it', async () => {
    const input = recorder();
    const { peer: client } = await handshaken({ framebuffer: painted(), input, viewOnly: true }, { encodings: [0, -258] });
    client.sendKey(0x61, true);
    client.sendPointer(1, 12, 34);
    client.sendCutText('hello');
    client.sendQemuKey(0x62, 48, true);
    await fullUpdate(client); // the server has read everything sent before the request
    expect(input.events).toEqual([]);
  });

  it('updates two clients of one framebuffer, each in its own format', async () => {
    const fb = painted();
    const options = { framebuffer: fb, input: recorder() };
    const a = (await handshaken(options, { encodings: [16] })).peer;
    const b = (await handshaken(options, { format: RGB565, encodings: [5] })).peer;
    await Promise.all([fullUpdate(a), fullUpdate(b)]);
    a.requestUpdate(true);
    b.requestUpdate(true);
    fb.fill({ x: 5, y: 5, w: 50, h: 50 }, 0xabcdef);
    fb.damage({ x: 5, y: 5, w: 50, h: 50 });
    await Promise.all([a.readUpdate(), b.readUpdate()]);
    expect([...a.values]).toEqual(expected(fb, NATIVE_FORMAT));
    expect([...b.values]).toEqual(expected(fb, RGB565));
  });

  it('closes a client that sends a garbled message with one clear error, and only that client', async () => {
    const fb = painted();
    const good = await handshaken({ framebuffer: fb, input: recorder() });
    const bad = await handshaken({ framebuffer: fb, input: recorder() });
    bad.peer.write(Buffer.from([99, 0, 0, 0]));
    expect((await bad.closed)?.message).toBe('RFB viewer: unknown client message type 99; the viewer was disconnected');
    await fullUpdate(good.peer);
    expect([...good.peer.values]).toEqual(expected(fb, NATIVE_FORMAT));
  });

  it('keeps at most one update queued for a client that stops reading', async () => {
    const fb = new Framebuffer(800, 600, 'big');
    const served = await handshaken({ framebuffer: fb, input: recorder() });
    await fullUpdate(served.peer);
    const frameBytes = 800 * 600 * 4;
    served.client.pause();
    const before = served.socket.bytesRead;
    // A client that asks ahead of reading: each request, once read, may be answered at once.
    for (let i = 1; i <= 20; i += 1) {
      fb.fill({ x: 0, y: 0, w: 800, h: 600 }, i * 0x050505);
      fb.damage({ x: 0, y: 0, w: 800, h: 600 });
      served.peer.requestUpdate(true);
      await waitFor(() => served.socket.bytesRead === before + 10 * i, 'the server to read the request');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(() => served.socket.writableLength > 0, 'the server to fill its buffer');
    expect(served.socket.writableLength).toBeLessThanOrEqual(frameBytes + 16);
  });

  it('sends bell and clipboard text from the VM', async () => {
    const { peer: client, connection } = await handshaken({ framebuffer: painted(), input: recorder() });
    connection.bell();
    connection.clipboard('from the VM');
    await fullUpdate(client);
    expect([client.bells, client.cutTexts]).toEqual([1, ['from the VM']]);
  });

  it('closes a connection that does not finish the handshake in time, with the reason', async () => {
    const served = await connectClient({ framebuffer: painted(), input: recorder(), preauthTimeoutMs: 200 });
    served.client.write('RFB 003.008\n'); // then nothing: no security type
    const error = await served.closed;
    expect(error).toBeInstanceOf(ClientDroppedError);
    expect(error?.message).toBe('it finished no VNC handshake within 200 ms');
  });

  it("gives a client that was sent the challenge the password answer's longer wait: a person typing is not cut off", async () => {
    const options = {
      framebuffer: painted(),
      input: recorder(),
      password: 'sesame',
      preauthTimeoutMs: 1000,
      passwordAnswerTimeoutMs: 60_000,
    };
    const served = await connectClient(options);
    const reader = new ByteReader(served.client);
    await reader.read(12, 5000, 'the version');
    served.client.write('RFB 003.008\n');
    await reader.read(2, 5000, 'the security types');
    served.client.write(Buffer.from([2]));
    const challenge = await reader.read(16, 5000, 'the challenge');
    let ended = false;
    void served.closed.then(() => (ended = true));
    // Past the handshake deadline (a client connected after this one has been dropped by its
    // own, which ends later), the user is still typing.
    await (
      await connectClient(options)
    ).closed;
    expect(ended).toBe(false);
    served.client.write(expectedVncResponse('sesame', challenge));
    expect((await reader.read(4, 5000, 'the result')).readUInt32BE(0)).toBe(0);
  });

  it('reads what a client sent while the process was busy before it judges the client silent', async () => {
    const options = () => ({
      framebuffer: painted(),
      input: recorder(),
      password: 'sesame',
      authGate: new AuthBackoff().gate('10.0.0.9:1000'),
      silentTimeoutMs: 50,
    });
    const served = await connectClient(options());
    const reader = new ByteReader(served.client);
    await reader.read(12, 5000, 'the version');
    served.client.write('RFB 003.008\n');
    // Busy past the silent wait: the answer is in the socket when the wait's timer is due.
    const busyUntil = Date.now() + 300;
    while (Date.now() < busyUntil);
    expect((await reader.read(2, 5000, 'the security types'))[1]).toBe(2);
    // A client that really says nothing is still dropped.
    const quiet = await connectClient(options());
    expect((await quiet.closed)?.message).toBe('it sent nothing within 50 ms');
  });

  it("still drops a client that never answers the challenge, once the password answer's wait is over", async () => {
    const served = await connectClient({
      framebuffer: painted(),
      input: recorder(),
      password: 'sesame',
      preauthTimeoutMs: 60_000,
      passwordAnswerTimeoutMs: 300,
    });
    const reader = new ByteReader(served.client);
    await reader.read(12, 5000, 'the version');
    served.client.write('RFB 003.008\n');
    await reader.read(2, 5000, 'the security types');
    served.client.write(Buffer.from([2]));
    await reader.read(16, 5000, 'the challenge');
    const error = await served.closed;
    expect(error).toBeInstanceOf(ClientDroppedError);
    expect(error?.message).toBe('it answered no VNC password within 300 ms');
  });

  it('keeps a served client past the handshake deadline', async () => {
    const options = { framebuffer: painted(), input: recorder(), preauthTimeoutMs: 1000 };
    const { peer: client, closed } = await handshaken(options);
    let ended = false;
    void closed.then(() => (ended = true));
    // Past its deadline: a client connected after it, saying nothing, has been dropped by its own.
    await (
      await connectClient(options)
    ).closed;
    await fullUpdate(client);
    expect(ended).toBe(false);
  });

  it('bounds what waits for a client that stops reading: bells and clipboards are dropped, then the client is', async () => {
    const served = await handshaken({ framebuffer: painted(), input: recorder(), stallTimeoutMs: 500 });
    await fullUpdate(served.peer);
    served.client.pause();
    const text = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 400; i += 1) {
      served.connection.clipboard(text);
      for (let b = 0; b < 1000; b += 1) served.connection.bell();
      await new Promise((resolve) => setImmediate(resolve));
    }
    // One clipboard past the 64 KiB backlog at most, never 100 MiB of them.
    expect(served.socket.writableLength).toBeLessThan(2 * 1024 * 1024);
    const error = await served.closed;
    expect(error?.message).toBe('it read nothing for 500 ms while its screen changed');
  });

  it('stops reading a client while the console takes no input, and reads it again after', async () => {
    const input = recorder();
    let full = false;
    let room: (() => void) | undefined;
    const served = await handshaken({
      framebuffer: painted(),
      input: { ...input, roomForInput: () => (full ? new Promise<void>((resolve) => (room = resolve)) : undefined) },
    });
    await fullUpdate(served.peer); // the client's set-up messages are read
    full = true;
    served.peer.sendKey(0x61, true);
    await waitFor(() => input.events.length === 1 && served.socket.isPaused(), 'the key, then the client held');
    full = false;
    served.peer.sendKey(0x62, true);
    // Held: the second key waits in the socket until the console has room.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(input.events).toEqual(['key down 61']);
    room?.();
    await waitFor(() => input.events.length === 2, 'the key after the console drained');
    expect(input.events).toEqual(['key down 61', 'key down 62']);
  });

  it('stops reading a client that asks for answers it does not read (colour maps for SetPixelFormat)', async () => {
    const served = await handshaken({ framebuffer: painted(), input: recorder() });
    await fullUpdate(served.peer);
    served.client.pause();
    const colourMapped = Buffer.alloc(20);
    encodePixelFormat({ ...NATIVE_FORMAT, bitsPerPixel: 8, depth: 8, trueColour: false }).copy(colourMapped, 4);
    // 20,000 requests of 20 bytes, each answered with a 1.5 KB colour map: 30 MB if all were answered.
    served.client.write(Buffer.concat(Array.from({ length: 20_000 }, () => colourMapped)));
    await waitFor(() => served.socket.isPaused(), 'the server to stop reading the client');
    expect(served.socket.writableLength).toBeLessThan(2 * 1024 * 1024);
  });
});
