/**
 * Bands encoded once for every client of one framebuffer: when several clients of a console are
 * sent the same band of its picture in the same pixel format and a stateless encoding (Raw,
 * Hextile: an Encoder with a `shareKey`), the first encodes it and the others are given the same
 * Buffers. An entry holds only while no row of its band was written since it was made (the
 * framebuffer's write counts), a framebuffer's entries hold one picture's worth of bytes at most
 * and are dropped once nobody takes them, or once fewer than two clients are left to share
 * them. Zlib encodings (ZRLE, Tight) keep a stream per client, whose bytes no other client can
 * inflate: they are encoded for each, and Tight reuses its JPEG pictures and their trial
 * compressions (`Band.reuse`), which no stream goes into.
 */
import type { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import type { PixelFormat } from '../wire/rfb-wire.js';
import type { Band, EncodedBand, Encoder } from './encoders/encoder.js';

/**
 * An entry nobody took for this long is dropped. Clients of one console are sent a picture's
 * bands within a few turns of each other; an idle console should not hold its last picture twice.
 */
const UNUSED_ENTRY_MS = 250;
/** At most this many entries a framebuffer, whatever their size. */
const MAX_ENTRIES = 64;

interface Entry {
  rect: Rect;
  /** The framebuffer's write count before the band was read. */
  writeCount: number;
  /** What the band (or part of it) became. */
  value: unknown;
  bytes: number;
  /** Taken (or made) since the last sweep. */
  used: boolean;
}

/** The bytes and layout of a pixel format, as a key: two clients with the same one get the same bytes. */
function formatKey(f: PixelFormat): string {
  return `${f.bitsPerPixel}.${f.depth}.${f.bigEndian ? 1 : 0}.${f.trueColour ? 1 : 0}.${f.redMax}.${f.greenMax}.${f.blueMax}.${f.redShift}.${f.greenShift}.${f.blueShift}`;
}

const entryKey = (part: string, r: Rect) => `${part} ${r.x},${r.y},${r.w},${r.h}`;

/** What a reused part holds on to: its bytes, when it is bytes. */
const sizeOf = (value: unknown) => (Buffer.isBuffer(value) ? value.length : 0);

export class SharedBands {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private clients = 0;
  private sweeping: NodeJS.Timeout | undefined;

  constructor(private readonly framebuffer: Framebuffer) {}

  /** A client is sent this framebuffer's updates from now on (until `left`). */
  joined(): void {
    this.clients += 1;
  }

  left(): void {
    this.clients -= 1;
    if (this.clients < 2) this.clear();
  }

  /** How many entries are held (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * `band` as `encoder` makes it: from an entry another client's encode left, when one holds.
   * An encoder with a state of its own (Tight) is given `reuse` for the parts of it that have none.
   */
  band(encoder: Encoder, band: Band): EncodedBand | Promise<EncodedBand> {
    const fb = this.framebuffer;
    if (this.clients < 2 || band.pixels !== fb.pixels) return encoder.band(band);
    const format = formatKey(band.packer.format);
    if (encoder.shareKey === undefined) {
      return encoder.band({ ...band, reuse: (part, area, make) => this.reuse(`${part} ${format}`, area, make, sizeOf) });
    }
    const key = `${encoder.shareKey} ${format}`;
    const found = this.found(key, band.rect);
    if (found) return found.value as EncodedBand;
    const writeCount = fb.writeCount;
    const encoded = encoder.band(band);
    const bytes = (e: EncodedBand) => e.parts.reduce((sum, part) => sum + part.length, 0);
    if (!(encoded instanceof Promise)) {
      this.keep(key, band.rect, writeCount, encoded, bytes(encoded));
      return encoded;
    }
    return encoded.then((result) => {
      this.keep(key, band.rect, writeCount, result, bytes(result));
      return result;
    });
  }

  /** What `make` gives for `area`: from an entry of `part` for it, when one holds. */
  private reuse<T>(part: string, area: Rect, make: () => T, size: (value: T) => number): T {
    const found = this.found(part, area);
    if (found) return found.value as T;
    const writeCount = this.framebuffer.writeCount;
    const value = make();
    this.keep(part, area, writeCount, value, size(value));
    return value;
  }

  /** The entry of `part` for `rect`, when no row of it was written since it was made. */
  private found(part: string, rect: Rect): Entry | undefined {
    const key = entryKey(part, rect);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.framebuffer.writtenSince(entry.rect, entry.writeCount)) {
      this.drop(key, entry);
      return undefined;
    }
    entry.used = true;
    return entry;
  }

  private keep(part: string, area: Rect, writeCount: number, value: unknown, bytes: number): void {
    if (this.clients < 2) return;
    const budget = this.framebuffer.width * this.framebuffer.height * 4;
    if (bytes > budget) return;
    const key = entryKey(part, area);
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    // The oldest go first: clients are sent a picture's bands in order.
    for (const [oldest, entry] of this.entries) {
      if (this.bytes + bytes <= budget && this.entries.size < MAX_ENTRIES) break;
      this.drop(oldest, entry);
    }
    this.entries.set(key, { rect: { ...area }, writeCount, value, bytes, used: true });
    this.bytes += bytes;
    this.sweepSoon();
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
    clearTimeout(this.sweeping);
    this.sweeping = undefined;
  }

  /** Entries nobody took since the last sweep are dropped; the sweeps stop once none is left. */
  private sweepSoon(): void {
    if (this.sweeping) return;
    this.sweeping = setTimeout(() => {
      this.sweeping = undefined;
      for (const [key, entry] of this.entries) {
        if (entry.used) entry.used = false;
        else this.drop(key, entry);
      }
      if (this.entries.size > 0) this.sweepSoon();
    }, UNUSED_ENTRY_MS);
    this.sweeping.unref();
  }
}

const shared = new WeakMap<Framebuffer, SharedBands>();

/** The shared bands of `framebuffer`'s clients: one set a framebuffer, so never one console's for another's. */
export function sharedBandsOf(framebuffer: Framebuffer): SharedBands {
  let bands = shared.get(framebuffer);
  if (!bands) {
    bands = new SharedBands(framebuffer);
    shared.set(framebuffer, bands);
  }
  return bands;
}
