// An RFB client that counts what servers send and decodes nothing: it walks each
// FramebufferUpdate's rectangles by their lengths (Raw, CopyRect, Hextile, ZRLE, Zlib, Tight) to
// find where a frame ends, so it measures any encoding, JPEG included, at wire speed.
import net from 'node:net';

export const WIRE_ENCODING = { raw: 0, copyRect: 1, hextile: 5, zlib: 6, tight: 7, zrle: 16 } as const;

/** 32 bits, depth 24, little-endian true colour: Tight's TPIXELs are 3 bytes. */
const PIXEL_FORMAT = Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
const BPP = 4;

/** Reads exact byte counts from a socket. */
class Reader {
  private chunks: Buffer[] = [];
  private length = 0;
  private waiting: (() => void) | undefined;
  bytes = 0;
  constructor(socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      this.bytes += chunk.length;
      this.waiting?.();
    });
  }
  async read(size: number): Promise<Buffer> {
    while (this.length < size) await new Promise<void>((resolve) => (this.waiting = resolve));
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = size < all.length ? [all.subarray(size)] : [];
    this.length -= size;
    return all.subarray(0, size);
  }
}

export interface WireClient {
  width: number;
  height: number;
  /** Bytes received since connecting. */
  readonly bytes: number;
  /** Pixels of the screen the updates covered (pixel rectangles and copies), since connecting. */
  readonly pixels: number;
  /** Asks for a frame and resolves when it has arrived whole. */
  frame(incremental: boolean): Promise<void>;
  close(): void;
}

/** Connects (security None), asks for 32-bit pixels and `encodings` (first choice first). */
export async function connectWire(port: number, encodings: readonly number[]): Promise<WireClient> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const reader = new Reader(socket);
  await reader.read(12);
  socket.write('RFB 003.008\n');
  const types = await reader.read((await reader.read(1))[0]);
  if (!types.includes(1)) throw new Error('the server wants a password');
  socket.write(Buffer.from([1]));
  if ((await reader.read(4)).readUInt32BE(0) !== 0) throw new Error('security failed');
  socket.write(Buffer.from([1]));
  const init = await reader.read(24);
  await reader.read(init.readUInt32BE(20));
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  socket.write(Buffer.concat([Buffer.from([0, 0, 0, 0]), PIXEL_FORMAT]));
  const list = Buffer.alloc(4 + encodings.length * 4);
  list.writeUInt8(2, 0);
  list.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => list.writeInt32BE(e, 4 + i * 4));
  socket.write(list);

  const compact = async () => {
    let length = 0;
    for (let i = 0; i < 3; i++) {
      const b = (await reader.read(1))[0];
      length |= (i === 2 ? b : b & 0x7f) << (7 * i);
      if (i === 2 || !(b & 0x80)) break;
    }
    return length;
  };
  const tight = async (w: number, h: number) => {
    const control = (await reader.read(1))[0];
    const type = control >> 4;
    if (type === 8) return void (await reader.read(3));
    if (type === 9) return void (await reader.read(await compact()));
    let filter = 0;
    if (control & 0x40) filter = (await reader.read(1))[0];
    let size = w * h * 3;
    if (filter === 1) {
      const colours = (await reader.read(1))[0] + 1;
      await reader.read(colours * 3);
      size = colours === 2 ? Math.ceil(w / 8) * h : w * h;
    }
    await reader.read(size < 12 ? size : await compact());
  };
  const hextile = async (w: number, h: number) => {
    for (let ty = 0; ty < h; ty += 16) {
      for (let tx = 0; tx < w; tx += 16) {
        const tw = Math.min(16, w - tx);
        const th = Math.min(16, h - ty);
        const flags = (await reader.read(1))[0];
        if (flags & 1) {
          await reader.read(tw * th * BPP);
          continue;
        }
        if (flags & 2) await reader.read(BPP);
        if (flags & 4) await reader.read(BPP);
        if (flags & 8) {
          const count = (await reader.read(1))[0];
          await reader.read(count * ((flags & 16 ? BPP : 0) + 2));
        }
      }
    }
  };
  let pixels = 0;
  const rect = async () => {
    const head = await reader.read(12);
    const [w, h, encoding] = [head.readUInt16BE(4), head.readUInt16BE(6), head.readInt32BE(8)];
    if (encoding >= 0) pixels += w * h;
    if (encoding === WIRE_ENCODING.raw) await reader.read(w * h * BPP);
    else if (encoding === WIRE_ENCODING.copyRect) await reader.read(4);
    else if (encoding === WIRE_ENCODING.hextile) await hextile(w, h);
    else if (encoding === WIRE_ENCODING.zrle || encoding === WIRE_ENCODING.zlib) await reader.read((await reader.read(4)).readUInt32BE(0));
    else if (encoding === WIRE_ENCODING.tight) await tight(w, h);
    else if (encoding === -239) await reader.read(w * h * BPP + Math.ceil(w / 8) * h);
    else if (encoding !== -223 && encoding !== -258) throw new Error(`encoding ${encoding} is not walked`);
  };
  const request = (incremental: boolean) => {
    const message = Buffer.alloc(10);
    message.writeUInt8(3, 0);
    message.writeUInt8(incremental ? 1 : 0, 1);
    message.writeUInt16BE(width, 6);
    message.writeUInt16BE(height, 8);
    socket.write(message);
  };
  return {
    width,
    height,
    get bytes() {
      return reader.bytes;
    },
    get pixels() {
      return pixels;
    },
    async frame(incremental) {
      request(incremental);
      for (;;) {
        const type = (await reader.read(1))[0];
        if (type === 0) break;
        if (type === 2) continue;
        if (type === 3) await reader.read((await reader.read(7)).readUInt32BE(3));
        else throw new Error(`server message ${type} is not walked`);
      }
      const count = (await reader.read(3)).readUInt16BE(1);
      for (let i = 0; i < count; i++) await rect();
    },
    close: () => socket.destroy(),
  };
}
