/**
 * The encodings the server writes, one line each: a client gets the first of its own list that
 * is here (RFB leaves the choice to the server; every client lists its favourite first). A new
 * encoding is its file and one line here.
 */
import { copyRect } from './copyrect.js';
import type { EncodeSettings, Encoder, EncoderKind } from './encoder.js';
import { hextile } from './hextile.js';
import { raw } from './raw.js';
import { tight } from './tight.js';
import { zrle } from './zrle.js';

export const ENCODERS: readonly EncoderKind[] = [tight, zrle, hextile, copyRect, raw];

const JPEG_QUALITY_0 = -32;
const COMPRESS_LEVEL_0 = -256;

/** The settings a SetEncodings list asks for: the first quality level and compress level listed. */
export function settingsOf(encodings: readonly number[]): EncodeSettings {
  const level = (base: number) => {
    const found = encodings.find((e) => e >= base && e <= base + 9);
    return found === undefined ? undefined : found - base;
  };
  return { jpegQuality: level(JPEG_QUALITY_0), compressLevel: level(COMPRESS_LEVEL_0) };
}

/**
 * One client connection's encoders: the one its SetEncodings chose, each made when first
 * chosen and kept (with its zlib streams) until the connection closes, as the client keeps its
 * decoders' streams.
 */
export class ClientEncoders {
  private readonly made = new Map<number, Encoder>();
  private chosen: EncoderKind = raw;
  private settings: EncodeSettings = {};
  /** The client accepts CopyRect. */
  copyRect = false;

  /**
   * SetEncodings: the first pixel encoding listed that the server has (Raw else), and the
   * settings. True when that changed what the client is sent (a client repeating its
   * SetEncodings is logged once).
   */
  choose(encodings: readonly number[]): boolean {
    const before = this.description;
    this.chosen = encodings.map((e) => ENCODERS.find((kind) => kind.encoding === e && kind.create)).find((kind) => kind) ?? raw;
    this.copyRect = encodings.includes(copyRect.encoding);
    this.settings = settingsOf(encodings);
    for (const encoder of this.made.values()) encoder.configure?.(this.settings);
    return this.description !== before;
  }

  /** The chosen encoding's name (as logs and counters say it). */
  get name(): string {
    return this.chosen.name;
  }

  /** What the client's pictures go out in, as a log line says it. */
  get description(): string {
    const { jpegQuality, compressLevel } = this.settings;
    const settings = [
      this.chosen === tight && jpegQuality !== undefined ? `JPEG quality ${jpegQuality}` : undefined,
      this.chosen === tight && compressLevel !== undefined ? `compress level ${compressLevel}` : undefined,
    ].filter((part) => part !== undefined);
    return `${this.chosen.name}${settings.length ? ` (${settings.join(', ')})` : ''}${this.copyRect ? ', CopyRect' : ''}`;
  }

  get encoding(): number {
    return this.chosen.encoding;
  }

  /** The chosen encoding's encoder for this connection. */
  get encoder(): Encoder {
    let encoder = this.made.get(this.chosen.encoding);
    if (!encoder) {
      encoder = (this.chosen.create as (settings: EncodeSettings) => Encoder)(this.settings);
      this.made.set(this.chosen.encoding, encoder);
    }
    return encoder;
  }

  close(): void {
    for (const encoder of this.made.values()) encoder.close();
    this.made.clear();
  }
}
