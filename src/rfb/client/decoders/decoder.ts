/**
 * What every RFB decoder is (as noVNC's core/decoders/): one module per encoding, each making
 * a Decoder per connection that owns its state (a zlib stream, Tight's four), listed once in
 * index.ts. The client looks a rectangle's encoding up there and feeds the body to it.
 */
import type { ByteQueue } from '../../wire/byte-queue.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import type { Rect } from '../../wire/geometry.js';
import type { DecodeBudget } from '../decode-budget.js';

/**
 * Decodes one rectangle's body from the queue as its bytes arrive: returns true once the
 * rectangle is complete (and drawn), false while more bytes must come or once `budget` is spent
 * (then `budget.exhausted` is true and the caller calls again in a later turn; a decoder checks
 * it before each piece of work, so false with budget left always means "more bytes"). Throws
 * RfbProtocolError.
 */
export type RectDecoder = (queue: ByteQueue, budget: DecodeBudget) => boolean;

/** One connection's decoder of one encoding. */
export interface Decoder {
  /** The reader of one rectangle's body; the rectangle lies inside `fb` (the client checked). */
  rect(fb: Framebuffer, rect: Rect): RectDecoder;
  /** The connection is over: what the decoder holds is let go. */
  close(): void;
}

/** An encoding vconsole decodes: its name (as `encodingsSeen` says it), its RFB number, its decoder. */
export interface DecoderKind<Name extends string = string> {
  readonly name: Name;
  readonly encoding: number;
  /** A new decoder, with state of its own, for one connection. */
  create(): Decoder;
}

/** The Decoder of an encoding that keeps nothing between rectangles. */
export function stateless(rect: (fb: Framebuffer, rect: Rect) => RectDecoder): () => Decoder {
  return () => ({ rect, close: () => undefined });
}
