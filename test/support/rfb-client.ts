/**
 * The tests' RFB peer on the client side: ByteReader (exact reads from a stream), the VNC
 * Authentication answer computed on its own, RfbClient, and probeRfb (a handshake and maybe one
 * frame). test/support/fake-rfb-server.ts is the server side.
 */
import type { Duplex } from 'node:stream';
import { constants, createInflate, type Inflate } from 'node:zlib';
import desJs from 'des.js';
import { VconsoleError } from '../../src/errors.js';
import type { Rect } from '../../src/rfb/wire/geometry.js';
import { NATIVE_FORMAT, encodePixelFormat, type PixelFormat } from '../../src/rfb/wire/rfb-wire.js';

export interface RfbProbeResult {
  version: string;
  width: number;
  height: number;
  name: string;
  /** Framebuffer pixels after one full update, 32bpp BGRX as sent. */
  frame?: Buffer;
}

export interface RfbClientOptions {
  /** The highest RFB version to speak (default 3.8): the lower of it and the server's is spoken. */
  version?: '3.3' | '3.7' | '3.8';
  /** The VNC password, when the server asks for one; given, VNC Authentication is chosen over None. */
  password?: string;
  /** The pixel format to ask for (default NATIVE_FORMAT: 32bpp B G R X). */
  format?: PixelFormat;
  /** The encodings to ask for (default Raw only). */
  encodings?: number[];
  /** Limit for each wait on the server (handshake, one update); default 10 s. */
  timeoutMs?: number;
  /** ClientInit shared flag; default true so other viewers stay connected. */
  shared?: boolean;
}

/** Reads exact byte counts from a stream; rejects when it ends, fails or a wait times out. */
export class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiter: { size: number; resolve: (data: Buffer) => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(stream: Duplex) {
    stream.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.serve();
    });
    stream.on('end', () => this.fail(new VconsoleError('RFB: the server closed the connection')));
    stream.on('close', () => this.fail(new VconsoleError('RFB: the connection closed')));
    stream.on('error', (err) => this.fail(new VconsoleError(`RFB: connection failed: ${err.message}`, { cause: err })));
  }

  /** The next `size` bytes; `what` names the wait in a timeout message. */
  read(size: number, timeoutMs: number, what: string): Promise<Buffer> {
    if (this.waiter) return Promise.reject(new Error('RFB: concurrent reads are not supported'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new VconsoleError(`RFB: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          this.waiter = undefined;
          fn(value);
        };
      this.waiter = { size, resolve: settle(resolve), reject: settle(reject) };
      this.serve();
    });
  }

  private serve(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    if (this.buffered >= waiter.size) {
      const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = all.length > waiter.size ? [all.subarray(waiter.size)] : [];
      this.buffered = all.length - waiter.size;
      waiter.resolve(all.subarray(0, waiter.size));
    } else if (this.failure) {
      waiter.reject(this.failure);
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.serve();
  }
}

/** The DES response to a VNC challenge, computed here on its own (bits of each key byte reversed). */
export function expectedVncResponse(password: string, challenge: Buffer): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  const reversed = [...key].map((b) => parseInt(b.toString(2).padStart(8, '0').split('').reverse().join(''), 2));
  const cipher = desJs.DES.create({ type: 'encrypt', key: reversed, padding: false });
  return Buffer.from(cipher.update(challenge));
}

export interface ReceivedRect extends Rect {
  encoding: number;
}

/**
 * The one RFB client of the tests: it handshakes with any RFB 3.3 to 3.8 server (security None
 * or VNC Authentication), asks for the pixel format and encodings it is told (32bpp B G R X and
 * Raw by default), and decodes Raw, Hextile and ZRLE in any true-colour format, Cursor,
 * DesktopSize and the QEMU key acknowledgement; it records Fence, EndOfContinuousUpdates,
 * ExtendedDesktopSize, QEMU LED state and pointer motion change, and ExtendedClipboard payloads. Written from RFC 6143 independently of
 * vconsole's own client and encoders, so a mistake shared with them cannot hide.
 */
export class RfbClient {
  /** Pixel values in the client's format, row-major, width x height. */
  values: Uint32Array;
  cursor?: { x: number; y: number; w: number; h: number; pixels: Buffer; mask: Buffer };
  bells = 0;
  colourMaps = 0;
  cutTexts: string[] = [];
  /** ServerCutText payloads with a negative length (ExtendedClipboard), flags word first. */
  extendedCutTexts: Buffer[] = [];
  /** Fences the server sent (248). */
  fences: Array<{ flags: number; payload: Buffer }> = [];
  /** EndOfContinuousUpdates messages (150) seen. */
  endsOfContinuousUpdates = 0;
  /** ExtendedDesktopSize rectangles: x the reason, y the status. */
  extendedSizes: Array<{ reason: number; status: number; w: number; h: number; screens: number }> = [];
  /** LED states (QEMU's byte, VMware's word) and QEMU pointer motion change modes (true: absolute), as sent. */
  ledStates: number[] = [];
  pointerModes: boolean[] = [];
  qemuKeyAcked = false;
  /** ZRLE's zlib stream, made on the first ZRLE rectangle. */
  private inflate: Inflate | undefined;
  private inflated: Buffer[] = [];

  private constructor(
    private readonly stream: Duplex,
    private readonly reader: ByteReader,
    private readonly timeoutMs: number,
    /** The RFB version spoken, as '3.3', '3.7' or '3.8'. */
    readonly version: string,
    public width: number,
    public height: number,
    readonly name: string,
    readonly format: PixelFormat,
    /** The encodings asked for: a pixel rectangle in another is the server's mistake, refused. */
    private readonly encodings: readonly number[],
  ) {
    this.values = new Uint32Array(width * height);
  }

  /**
   * The screen as updates have painted it, 4 bytes a pixel as the default format sends them
   * (B, G, R, X): for a 32bpp little-endian format only.
   */
  get frame(): Buffer {
    const out = Buffer.alloc(this.values.length * 4);
    for (let i = 0; i < this.values.length; i += 1) out.writeUInt32LE(this.values[i], i * 4);
    return out;
  }

  /** Handshakes on `stream`, then asks for the pixel format and encodings of `options`. */
  static async connect(stream: Duplex, options: RfbClientOptions = {}): Promise<RfbClient> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const reader = new ByteReader(stream);
    const read = (size: number, what = 'the handshake') => reader.read(size, timeoutMs, what);
    const reason = async () => (await read((await read(4, 'a failure reason')).readUInt32BE(0), 'a failure reason')).toString('utf8');

    const banner = (await read(12, 'the ProtocolVersion')).toString('latin1');
    const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(banner);
    if (!match) throw new VconsoleError(`RFB: the server did not speak RFB (got ${JSON.stringify(banner)})`);
    const serverMinor = Number(match[1]) > 3 ? 8 : Number(match[2]);
    const highest = Number((options.version ?? '3.8').slice(2));
    const minor = Math.min(highest, serverMinor >= 8 ? 8 : serverMinor === 7 ? 7 : 3);
    stream.write(`RFB 003.00${minor}\n`);

    let type: number;
    if (minor === 3) {
      type = (await read(4, 'the security type')).readUInt32BE(0);
      if (type === 0) throw new VconsoleError(`RFB: the server refused the connection: ${await reason()}`);
    } else {
      const count = (await read(1, 'the security types'))[0];
      // No security type at all: the server refuses the connection, with a reason (RFC 6143 7.1.2).
      if (count === 0) throw new Error(`security failed: ${await reason()}`);
      const types = [...(await read(count, 'the security types'))];
      type = types.includes(1) && options.password === undefined ? 1 : types.includes(2) ? 2 : types[0];
      stream.write(Buffer.from([type]));
    }
    if (type !== 1 && type !== 2)
      throw new VconsoleError(`RFB: the server requires security type ${type}; only None (1) and VNC Authentication (2) are spoken here`);
    if (type === 2) stream.write(expectedVncResponse(options.password ?? '', await read(16, 'the VNC authentication challenge')));
    if (type === 2 || minor === 8) {
      const result = (await read(4, 'the SecurityResult')).readUInt32BE(0);
      if (result !== 0) throw new Error(`security failed: ${minor === 8 ? await reason() : 'no reason'}`);
    }

    stream.write(Buffer.from([options.shared === false ? 0 : 1]));
    const init = await read(24, 'the ServerInit');
    const nameLength = init.readUInt32BE(20);
    if (nameLength > 1 << 20) throw new VconsoleError(`RFB: desktop name of ${nameLength} bytes is not plausible`);
    const name = (await read(nameLength, 'the desktop name')).toString('utf8');
    const format = options.format ?? NATIVE_FORMAT;
    const encodings = options.encodings ?? [0];
    const setEncodings = Buffer.alloc(4 + encodings.length * 4);
    setEncodings.writeUInt8(2, 0);
    setEncodings.writeUInt16BE(encodings.length, 2);
    encodings.forEach((e, i) => setEncodings.writeInt32BE(e, 4 + i * 4));
    stream.write(Buffer.concat([Buffer.from([0, 0, 0, 0]), encodePixelFormat(format), setEncodings]));
    return new RfbClient(stream, reader, timeoutMs, `3.${minor}`, init.readUInt16BE(0), init.readUInt16BE(2), name, format, encodings);
  }

  /** Raw bytes, for garbled-message tests. */
  write(data: Buffer): void {
    this.stream.write(data);
  }

  requestUpdate(incremental: boolean, rect: Rect = { x: 0, y: 0, w: this.width, h: this.height }): void {
    const out = Buffer.alloc(10);
    out.writeUInt8(3, 0);
    out.writeUInt8(incremental ? 1 : 0, 1);
    out.writeUInt16BE(rect.x, 2);
    out.writeUInt16BE(rect.y, 4);
    out.writeUInt16BE(rect.w, 6);
    out.writeUInt16BE(rect.h, 8);
    this.stream.write(out);
  }

  private get bytesPerPixel(): number {
    return this.format.bitsPerPixel / 8;
  }

  private read(size: number, timeoutMs = this.timeoutMs): Promise<Buffer> {
    return size === 0 ? Promise.resolve(Buffer.alloc(0)) : this.reader.read(size, timeoutMs, 'a server message');
  }

  private pixel(buf: Buffer, at: number, size = this.bytesPerPixel): number {
    if (size === 1) return buf[at];
    if (size === 2) return this.format.bigEndian ? buf.readUInt16BE(at) : buf.readUInt16LE(at);
    if (size === 4) return this.format.bigEndian ? buf.readUInt32BE(at) : buf.readUInt32LE(at);
    // A 3-byte ZRLE CPIXEL: put the missing byte back at the end where the channels are not.
    const f = this.format;
    const low = Math.max(f.redMax * 2 ** f.redShift, f.greenMax * 2 ** f.greenShift, f.blueMax * 2 ** f.blueShift) < 2 ** 24;
    const four = Buffer.alloc(4);
    const skip = low === !f.bigEndian ? 0 : 1;
    buf.copy(four, skip, at, at + 3);
    return this.pixel(four, 0, 4);
  }

  private paint(x: number, y: number, w: number, h: number, value: number): void {
    for (let row = y; row < y + h; row += 1) this.values.fill(value, row * this.width + x, row * this.width + x + w);
  }

  /**
   * Waits for the next FramebufferUpdate (counting bells and cut texts before it), decodes it;
   * `timeoutMs` bounds the wait for it to begin.
   */
  async readUpdate(timeoutMs = this.timeoutMs): Promise<ReceivedRect[]> {
    for (;;) {
      const rects = await this.readMessage(timeoutMs);
      if (rects) return rects;
    }
  }

  /**
   * Reads the next server message of any type: a FramebufferUpdate is decoded and its
   * rectangles returned; any other message is recorded (bells, cut texts, fences...) and
   * undefined returned. `timeoutMs` bounds the wait for it to begin.
   */
  async readMessage(timeoutMs = this.timeoutMs): Promise<ReceivedRect[] | undefined> {
    const type = (await this.read(1, timeoutMs))[0];
    if (type === 0) return this.readUpdateBody();
    if (type === 1) {
      await this.read((await this.read(5)).readUInt16BE(3) * 6);
      this.colourMaps += 1;
    } else if (type === 2) this.bells += 1;
    else if (type === 3) {
      const length = (await this.read(7)).readInt32BE(3);
      if (length < 0) this.extendedCutTexts.push(await this.read(-length));
      else this.cutTexts.push((await this.read(length)).toString('latin1'));
    } else if (type === 150) this.endsOfContinuousUpdates += 1;
    else if (type === 248) {
      const head = await this.read(8);
      this.fences.push({ flags: head.readUInt32BE(3), payload: await this.read(head[7]) });
    } else throw new Error(`unexpected server message type ${type}`);
    return undefined;
  }

  private async readUpdateBody(): Promise<ReceivedRect[]> {
    const count = (await this.read(3)).readUInt16BE(1);
    const rects: ReceivedRect[] = [];
    for (let i = 0; i < count; i += 1) {
      const head = await this.read(12);
      const r = {
        x: head.readUInt16BE(0),
        y: head.readUInt16BE(2),
        w: head.readUInt16BE(4),
        h: head.readUInt16BE(6),
        encoding: head.readInt32BE(8),
      };
      rects.push(r);
      if (r.encoding === -223) {
        this.width = r.w;
        this.height = r.h;
        this.values = new Uint32Array(r.w * r.h);
        continue;
      }
      if (r.encoding === -258) {
        this.qemuKeyAcked = true;
        continue;
      }
      if (r.encoding === -308) {
        const screens = (await this.read(4))[0];
        await this.read(screens * 16);
        this.extendedSizes.push({ reason: r.x, status: r.y, w: r.w, h: r.h, screens });
        if (r.y === 0 && (r.w !== this.width || r.h !== this.height)) {
          this.width = r.w;
          this.height = r.h;
          this.values = new Uint32Array(r.w * r.h);
        }
        continue;
      }
      if (r.encoding === -261) {
        this.ledStates.push((await this.read(1))[0]);
        continue;
      }
      if (r.encoding === -262) {
        this.ledStates.push((await this.read(4)).readUInt32BE(0));
        continue;
      }
      if (r.encoding === -257) {
        this.pointerModes.push(r.x !== 0);
        continue;
      }
      if (r.encoding === -239) {
        const pixels = await this.read(r.w * r.h * this.bytesPerPixel);
        const mask = await this.read(Math.ceil(r.w / 8) * r.h);
        this.cursor = { ...r, pixels, mask };
        continue;
      }
      if (!this.encodings.includes(r.encoding))
        throw new VconsoleError(`RFB: unexpected encoding ${r.encoding} (asked for ${this.encodings.join(', ')})`);
      if (r.x + r.w > this.width || r.y + r.h > this.height)
        throw new Error(`rectangle ${JSON.stringify(r)} outside ${this.width}x${this.height}`);
      if (r.encoding === 0) await this.decodeRaw(r);
      else if (r.encoding === 5) await this.decodeHextile(r);
      else if (r.encoding === 16) await this.decodeZrle(r);
      else if (r.encoding === 1) await this.decodeCopyRect(r);
      else throw new Error(`unexpected encoding ${r.encoding}`);
    }
    return rects;
  }

  /** CopyRect: the values at the source move to the rectangle (read whole first: areas may overlap). */
  private async decodeCopyRect(r: Rect): Promise<void> {
    const source = await this.read(4);
    const [sx, sy] = [source.readUInt16BE(0), source.readUInt16BE(2)];
    const before = Uint32Array.from(this.values);
    for (let y = 0; y < r.h; y += 1)
      this.values.set(before.subarray((sy + y) * this.width + sx, (sy + y) * this.width + sx + r.w), (r.y + y) * this.width + r.x);
  }

  private async decodeRaw(r: Rect): Promise<void> {
    const data = await this.read(r.w * r.h * this.bytesPerPixel);
    for (let y = 0; y < r.h; y += 1) {
      for (let x = 0; x < r.w; x += 1) this.values[(r.y + y) * this.width + r.x + x] = this.pixel(data, (y * r.w + x) * this.bytesPerPixel);
    }
  }

  private async decodeHextile(r: Rect): Promise<void> {
    const bpp = this.bytesPerPixel;
    let background = 0;
    let foreground = 0;
    for (let ty = r.y; ty < r.y + r.h; ty += 16) {
      for (let tx = r.x; tx < r.x + r.w; tx += 16) {
        const tw = Math.min(16, r.x + r.w - tx);
        const th = Math.min(16, r.y + r.h - ty);
        const sub = (await this.read(1))[0];
        if (sub & 1) {
          await this.decodeRaw({ x: tx, y: ty, w: tw, h: th });
          continue;
        }
        if (sub & 2) background = this.pixel(await this.read(bpp), 0);
        this.paint(tx, ty, tw, th, background);
        if (sub & 4) foreground = this.pixel(await this.read(bpp), 0);
        if (!(sub & 8)) continue;
        const n = (await this.read(1))[0];
        for (let i = 0; i < n; i += 1) {
          const colour = sub & 16 ? this.pixel(await this.read(bpp), 0) : foreground;
          const [xy, wh] = await this.read(2);
          this.paint(tx + (xy >> 4), ty + (xy & 15), (wh >> 4) + 1, (wh & 15) + 1, colour);
        }
      }
    }
  }

  private inflateSync(data: Buffer): Promise<Buffer> {
    if (!this.inflate) {
      this.inflate = createInflate();
      this.inflate.on('data', (chunk: Buffer) => this.inflated.push(chunk));
    }
    const inflate = this.inflate;
    return new Promise((resolve, reject) => {
      // Bad data fails the stream (and the update being read), never the test process.
      const failed = (err: Error) => reject(new VconsoleError(`RFB: ZRLE data does not inflate: ${err.message}`));
      inflate.once('error', failed);
      inflate.write(data);
      inflate.flush(constants.Z_SYNC_FLUSH, () => {
        inflate.off('error', failed);
        const out = Buffer.concat(this.inflated);
        this.inflated = [];
        resolve(out);
      });
    });
  }

  private async decodeZrle(r: Rect): Promise<void> {
    const f = this.format;
    const compact =
      f.trueColour &&
      f.bitsPerPixel === 32 &&
      f.depth <= 24 &&
      (Math.max(f.redMax * 2 ** f.redShift, f.greenMax * 2 ** f.greenShift, f.blueMax * 2 ** f.blueShift) < 2 ** 24 ||
        Math.min(f.redShift, f.greenShift, f.blueShift) >= 8);
    const cp = compact ? 3 : this.bytesPerPixel;
    const data = await this.inflateSync(await this.read((await this.read(4)).readUInt32BE(0)));
    let at = 0;
    const cpixel = () => {
      const v = this.pixel(data, at, cp);
      at += cp;
      return v;
    };
    const runLength = () => {
      let n = 1;
      for (;;) {
        const b = data[at++];
        n += b;
        if (b !== 255) return n;
      }
    };
    for (let ty = r.y; ty < r.y + r.h; ty += 64) {
      for (let tx = r.x; tx < r.x + r.w; tx += 64) {
        const tw = Math.min(64, r.x + r.w - tx);
        const th = Math.min(64, r.y + r.h - ty);
        const tile: number[] = [];
        const sub = data[at++];
        const palette = Array.from({ length: sub >= 130 ? sub - 128 : sub >= 2 && sub <= 16 ? sub : 0 }, cpixel);
        if (sub === 0) for (let i = 0; i < tw * th; i += 1) tile.push(cpixel());
        else if (sub === 1) tile.push(...Array<number>(tw * th).fill(cpixel()));
        else if (sub <= 16) {
          const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
          for (let y = 0; y < th; y += 1) {
            let bitPos = 0;
            for (let x = 0; x < tw; x += 1) {
              const byte = data[at + (bitPos >> 3)];
              tile.push(palette[(byte >> (8 - bits - (bitPos & 7))) & ((1 << bits) - 1)]);
              bitPos += bits;
            }
            at += Math.ceil((tw * bits) / 8);
          }
        } else if (sub === 128) {
          while (tile.length < tw * th) {
            const v = cpixel();
            tile.push(...Array<number>(runLength()).fill(v));
          }
        } else if (sub >= 130) {
          while (tile.length < tw * th) {
            const index = data[at++];
            tile.push(...Array<number>(index & 128 ? runLength() : 1).fill(palette[index & 127]));
          }
        } else throw new Error(`unexpected ZRLE subencoding ${sub}`);
        if (tile.length !== tw * th) throw new Error(`ZRLE tile of ${tile.length} pixels, expected ${tw * th}`);
        for (let y = 0; y < th; y += 1) this.values.set(tile.slice(y * tw, (y + 1) * tw), (ty + y) * this.width + tx);
      }
    }
    if (at !== data.length) throw new Error(`ZRLE rectangle has ${data.length - at} bytes left over`);
  }

  sendKey(keysym: number, down: boolean): void {
    const out = Buffer.alloc(8);
    out.writeUInt8(4, 0);
    out.writeUInt8(down ? 1 : 0, 1);
    out.writeUInt32BE(keysym, 4);
    this.stream.write(out);
  }

  sendQemuKey(keysym: number, keycode: number, down: boolean): void {
    const out = Buffer.alloc(12);
    out.writeUInt8(255, 0);
    out.writeUInt16BE(down ? 1 : 0, 2);
    out.writeUInt32BE(keysym, 4);
    out.writeUInt32BE(keycode, 8);
    this.stream.write(out);
  }

  sendPointer(buttons: number, x: number, y: number): void {
    const out = Buffer.alloc(6);
    out.writeUInt8(5, 0);
    out.writeUInt8(buttons, 1);
    out.writeUInt16BE(x, 2);
    out.writeUInt16BE(y, 4);
    this.stream.write(out);
  }

  sendCutText(text: string | Buffer): void {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
    const head = Buffer.alloc(8);
    head.writeUInt8(6, 0);
    head.writeUInt32BE(bytes.length, 4);
    this.stream.write(Buffer.concat([head, bytes]));
  }

  /** Fence (248): flags, then at most 64 bytes of payload (more is the tests' hostile case). */
  sendFence(flags: number, payload: Buffer = Buffer.alloc(0)): void {
    const out = Buffer.alloc(9);
    out.writeUInt8(248, 0);
    out.writeUInt32BE(flags >>> 0, 4);
    out.writeUInt8(payload.length & 0xff, 8);
    this.stream.write(Buffer.concat([out, payload]));
  }

  /** EnableContinuousUpdates (150). */
  enableContinuousUpdates(enable: boolean, rect: Rect = { x: 0, y: 0, w: this.width, h: this.height }): void {
    const out = Buffer.alloc(10);
    out.writeUInt8(150, 0);
    out.writeUInt8(enable ? 1 : 0, 1);
    out.writeUInt16BE(rect.x, 2);
    out.writeUInt16BE(rect.y, 4);
    out.writeUInt16BE(rect.w, 6);
    out.writeUInt16BE(rect.h, 8);
    this.stream.write(out);
  }

  /** SetDesktopSize (251) with one screen of the whole size. */
  setDesktopSize(width: number, height: number): void {
    const out = Buffer.alloc(24);
    out.writeUInt8(251, 0);
    out.writeUInt16BE(width, 2);
    out.writeUInt16BE(height, 4);
    out.writeUInt8(1, 6);
    out.writeUInt16BE(width, 16);
    out.writeUInt16BE(height, 18);
    this.stream.write(out);
  }

  /** ClientCutText with a negative length: an ExtendedClipboard payload (flags word first). */
  sendExtendedCutText(payload: Buffer): void {
    const head = Buffer.alloc(8);
    head.writeUInt8(6, 0);
    head.writeInt32BE(-payload.length, 4);
    this.stream.write(Buffer.concat([head, payload]));
  }

  close(): void {
    this.inflate?.destroy();
    this.stream.destroy();
  }
}

/** Handshakes with an RFB server on `stream` and, with `readFrame`, reads one full frame. Closes the stream. */
export async function probeRfb(stream: Duplex, options: { timeoutMs?: number; readFrame?: boolean } = {}): Promise<RfbProbeResult> {
  try {
    const client = await RfbClient.connect(stream, { timeoutMs: options.timeoutMs });
    const result: RfbProbeResult = { version: client.version, width: client.width, height: client.height, name: client.name };
    if (options.readFrame) {
      client.requestUpdate(false);
      await client.readUpdate();
      result.frame = client.frame;
    }
    return result;
  } finally {
    stream.destroy();
  }
}
