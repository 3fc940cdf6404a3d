import type { Duplex } from 'node:stream';
import { VconsoleError } from '../../src/errors.js';
import type { Rect } from '../../src/rfb/wire/geometry.js';
import { NATIVE_FORMAT, encodePixelFormat } from '../../src/rfb/wire/rfb-wire.js';

export interface RfbProbeResult {
  version: string;
  width: number;
  height: number;
  name: string;
  /** Framebuffer pixels after one full update, 32bpp BGRX as sent. */
  frame?: Buffer;
}

export interface RfbClientOptions {
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
      const settle = <T>(fn: (value: T) => void) => (value: T) => {
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

/** A minimal RFB client for tests: security None, Raw encoding, 32bpp BGRX pixels. */
export class RfbClient {
  /** The framebuffer as updates have painted it, 4 bytes (B, G, R, X) per pixel. */
  readonly frame: Buffer;

  private constructor(
    private readonly stream: Duplex,
    private readonly reader: ByteReader,
    private readonly timeoutMs: number,
    readonly version: string,
    readonly width: number,
    readonly height: number,
    readonly name: string,
  ) {
    this.frame = Buffer.alloc(width * height * 4);
  }

  /** Handshakes on `stream`, then asks for 32bpp BGRX pixels and Raw encoding. */
  static async connect(stream: Duplex, options: RfbClientOptions = {}): Promise<RfbClient> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const reader = new ByteReader(stream);
    const read = (size: number, what: string) => reader.read(size, timeoutMs, what);
    const readReason = async () => (await read((await read(4, 'a failure reason')).readUInt32BE(0), 'a failure reason')).toString('utf8');

    const banner = (await read(12, 'the ProtocolVersion')).toString('latin1');
    const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(banner);
    if (!match) throw new VconsoleError(`RFB: the server did not speak RFB (got ${JSON.stringify(banner)})`);
    const serverMinor = Number(match[1]) > 3 ? 8 : Number(match[2]);
    const minor = serverMinor >= 8 ? 8 : serverMinor === 7 ? 7 : 3;
    stream.write(`RFB 003.00${minor}\n`);

    if (minor === 3) {
      const type = (await read(4, 'the security type')).readUInt32BE(0);
      if (type === 0) throw new VconsoleError(`RFB: the server refused the connection: ${await readReason()}`);
      if (type !== 1) throw new VconsoleError(`RFB: the server requires security type ${type}; only None is supported`);
    } else {
      const count = (await read(1, 'the security types'))[0];
      if (count === 0) throw new VconsoleError(`RFB: the server refused the connection: ${await readReason()}`);
      const types = [...(await read(count, 'the security types'))];
      if (!types.includes(1)) throw new VconsoleError(`RFB: the server offers security types ${types.join(', ')}; only None (1) is supported`);
      stream.write(Buffer.from([1]));
      if (minor === 8) {
        const result = (await read(4, 'the SecurityResult')).readUInt32BE(0);
        if (result !== 0) throw new VconsoleError(`RFB: security handshake failed: ${await readReason()}`);
      }
    }

    stream.write(Buffer.from([options.shared === false ? 0 : 1]));
    const init = await read(24, 'the ServerInit');
    const nameLength = init.readUInt32BE(20);
    if (nameLength > 1 << 20) throw new VconsoleError(`RFB: desktop name of ${nameLength} bytes is not plausible`);
    const name = (await read(nameLength, 'the desktop name')).toString('utf8');

    const setPixelFormat = Buffer.concat([Buffer.from([0, 0, 0, 0]), encodePixelFormat(NATIVE_FORMAT)]);
    const setEncodings = Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]);
    stream.write(Buffer.concat([setPixelFormat, setEncodings]));
    return new RfbClient(stream, reader, timeoutMs, `3.${minor}`, init.readUInt16BE(0), init.readUInt16BE(2), name);
  }

  /** FramebufferUpdateRequest for `rect` (default: the whole screen). */
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

  /** Waits for the next FramebufferUpdate, paints it into `frame`, returns its rectangles. */
  async readUpdate(timeoutMs = this.timeoutMs): Promise<Rect[]> {
    const read = (size: number) => this.reader.read(size, timeoutMs, 'a FramebufferUpdate');
    for (;;) {
      const type = (await read(1))[0];
      if (type === 0) break;
      if (type === 1) await read((await read(5)).readUInt16BE(3) * 6); // SetColourMapEntries
      else if (type === 2) continue; // Bell
      else if (type === 3) await read((await read(7)).readUInt32BE(3)); // ServerCutText
      else throw new VconsoleError(`RFB: unexpected server message type ${type}`);
    }
    const count = (await read(3)).readUInt16BE(1);
    const rects: Rect[] = [];
    for (let i = 0; i < count; i += 1) {
      const header = await read(12);
      const rect = { x: header.readUInt16BE(0), y: header.readUInt16BE(2), w: header.readUInt16BE(4), h: header.readUInt16BE(6) };
      const encoding = header.readInt32BE(8);
      if (encoding !== 0) throw new VconsoleError(`RFB: unexpected encoding ${encoding} (only Raw was asked for)`);
      if (rect.x + rect.w > this.width || rect.y + rect.h > this.height) throw new VconsoleError('RFB: rectangle outside the framebuffer');
      const pixels = rect.w * rect.h > 0 ? await read(rect.w * rect.h * 4) : Buffer.alloc(0);
      for (let row = 0; row < rect.h; row += 1) {
        pixels.copy(this.frame, ((rect.y + row) * this.width + rect.x) * 4, row * rect.w * 4, (row + 1) * rect.w * 4);
      }
      rects.push(rect);
    }
    return rects;
  }

  sendKey(keysym: number, down: boolean): void {
    const out = Buffer.alloc(8);
    out.writeUInt8(4, 0);
    out.writeUInt8(down ? 1 : 0, 1);
    out.writeUInt32BE(keysym, 4);
    this.stream.write(out);
  }

  /** `buttons` is the RFB mask: bit 0 left, 1 middle, 2 right, 3/4 wheel. */
  sendPointer(buttons: number, x: number, y: number): void {
    const out = Buffer.alloc(6);
    out.writeUInt8(5, 0);
    out.writeUInt8(buttons, 1);
    out.writeUInt16BE(x, 2);
    out.writeUInt16BE(y, 4);
    this.stream.write(out);
  }

  close(): void {
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
