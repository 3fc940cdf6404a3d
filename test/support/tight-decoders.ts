/**
 * Two independent Tight decoders for the server's encoder tests: vconsole's own client decoder
 * and noVNC's (core/decoders/tight.js), each fed a FramebufferUpdate's bytes and drawing into
 * an R G B picture. noVNC hands JPEG to the browser; here jpeg-js decodes it in its place.
 */
import jpeg from 'jpeg-js';
import { DecodeBudget } from '../../src/rfb/client/decode-budget.js';
import { DECODERS } from '../../src/rfb/client/decoders/index.js';
import type { Decoder } from '../../src/rfb/client/decoders/decoder.js';
import { ByteQueue } from '../../src/rfb/wire/byte-queue.js';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';

// The package exports only core/rfb.js: its Tight decoder is read from beside it. Its logging
// binds to window.console when loaded: a silent one, taken away again after.
const silent = () => undefined;
const scope = globalThis as { window?: unknown };
scope.window = { console: { debug: silent, info: silent, warn: silent, error: silent } };
const noVncTight = (await import(new URL('./decoders/tight.js', import.meta.resolve('@novnc/novnc')).href)) as {
  default: new () => { decodeRect(x: number, y: number, w: number, h: number, sock: unknown, display: unknown, depth: number): boolean };
};
delete scope.window;

const TIGHT = 7;
const COPY_RECT = 1;

/** What a decoder drew: w x h pixels, R G B. */
export interface RgbPicture {
  w: number;
  h: number;
  rgb: Buffer;
}

/** vconsole's own Tight decoder (and CopyRect), one connection across updates. */
export class OwnTightDecoder {
  readonly fb: Framebuffer;
  private readonly tight: Decoder;
  private readonly copy: Decoder;

  constructor(w: number, h: number) {
    this.fb = new Framebuffer(w, h);
    this.tight = (DECODERS.find((d) => d.encoding === TIGHT) as (typeof DECODERS)[number]).create();
    this.copy = (DECODERS.find((d) => d.encoding === COPY_RECT) as (typeof DECODERS)[number]).create();
  }

  decode(update: Buffer): void {
    const queue = new ByteQueue();
    queue.push(update.subarray(4));
    const budget = new DecodeBudget({ perTurn: 1e12, perSecond: 1e15 });
    for (let i = 0; i < update.readUInt16BE(2); i++) {
      const head = queue.take(12) as Buffer;
      const rect = { x: head.readUInt16BE(0), y: head.readUInt16BE(2), w: head.readUInt16BE(4), h: head.readUInt16BE(6) };
      const encoding = head.readInt32BE(8);
      const decoder = encoding === TIGHT ? this.tight : encoding === COPY_RECT ? this.copy : undefined;
      if (!decoder) throw new Error(`encoding ${encoding} in a Tight update`);
      if (!decoder.rect(this.fb, rect)(queue, budget)) throw new Error(`rectangle ${i} was not complete`);
    }
    if (queue.length !== 0) throw new Error(`${queue.length} bytes after the update's rectangles`);
  }

  picture(): RgbPicture {
    const { width: w, height: h, pixels } = this.fb;
    const rgb = Buffer.alloc(w * h * 3);
    for (let i = 0; i < w * h; i++) {
      rgb[i * 3] = pixels[i * 4 + 2];
      rgb[i * 3 + 1] = pixels[i * 4 + 1];
      rgb[i * 3 + 2] = pixels[i * 4];
    }
    return { w, h, rgb };
  }

  close(): void {
    this.tight.close();
    this.copy.close();
  }
}

/** noVNC's receive queue, as much of it as its Tight decoder uses, over one update's bytes. */
class NoVncSock {
  at = 0;
  constructor(private readonly data: Buffer) {}
  rQwait(_what: string, bytes: number): boolean {
    return this.data.length - this.at < bytes;
  }
  rQpeek8(): number {
    return this.data[this.at];
  }
  rQshift8(): number {
    return this.data[this.at++];
  }
  rQskipBytes(bytes: number): void {
    this.at += bytes;
  }
  rQshiftBytes(bytes: number): Uint8Array {
    const out = Uint8Array.from(this.data.subarray(this.at, this.at + bytes));
    this.at += bytes;
    return out;
  }
  rQshiftTo(target: Uint8Array, bytes: number): void {
    target.set(this.data.subarray(this.at, this.at + bytes));
    this.at += bytes;
  }
}

/** noVNC's Tight decoder drawing into an R G B picture; `types` are the compression types it was sent. */
export class NoVncTightDecoder {
  private readonly decoder = new noVncTight.default();
  readonly rgb: Buffer;
  readonly types = new Set<'fill' | 'jpeg' | 'basic'>();

  constructor(
    readonly w: number,
    readonly h: number,
  ) {
    this.rgb = Buffer.alloc(w * h * 3);
  }

  private readonly display = {
    fillRect: (x: number, y: number, w: number, h: number, colour: Uint8Array) => {
      for (let row = y; row < y + h; row++)
        for (let col = x; col < x + w; col++) this.rgb.set(colour.subarray(0, 3), (row * this.w + col) * 3);
    },
    blitImage: (x: number, y: number, w: number, h: number, rgbx: Uint8Array, offset: number) => {
      for (let row = 0; row < h; row++) {
        for (let col = 0; col < w; col++)
          this.rgb.set(rgbx.subarray(offset + (row * w + col) * 4, offset + (row * w + col) * 4 + 3), ((y + row) * this.w + x + col) * 3);
      }
    },
    imageRect: (x: number, y: number, w: number, h: number, mime: string, data: Uint8Array) => {
      if (mime !== 'image/jpeg') throw new Error(`noVNC was sent ${mime}`);
      const image = jpeg.decode(data, { useTArray: true, formatAsRGBA: true });
      if (image.width !== w || image.height !== h) throw new Error(`a ${image.width}x${image.height} JPEG for a ${w}x${h} rectangle`);
      this.display.blitImage(x, y, w, h, image.data, 0);
    },
  };

  decode(update: Buffer): void {
    const sock = new NoVncSock(update);
    sock.at = 4;
    for (let i = 0; i < update.readUInt16BE(2); i++) {
      const head = update.subarray(sock.at, sock.at + 12);
      sock.at += 12;
      const [x, y, w, h] = [head.readUInt16BE(0), head.readUInt16BE(2), head.readUInt16BE(4), head.readUInt16BE(6)];
      if (head.readInt32BE(8) !== TIGHT) throw new Error(`encoding ${head.readInt32BE(8)} in a Tight update`);
      const type = update[sock.at] >> 4;
      this.types.add(type === 8 ? 'fill' : type === 9 ? 'jpeg' : 'basic');
      if (!this.decoder.decodeRect(x, y, w, h, sock, this.display, 24)) throw new Error(`noVNC found rectangle ${i} incomplete`);
    }
    if (sock.at !== update.length) throw new Error(`${update.length - sock.at} bytes after the update's rectangles`);
  }

  picture(): RgbPicture {
    return { w: this.w, h: this.h, rgb: this.rgb };
  }
}
