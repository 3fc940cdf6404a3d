/**
 * How much decoding one console may do now. A hostile console can announce screens of 64
 * million pixels and fill them with 16 bytes; what it costs is the pixels written, so that is
 * what is counted: per turn of the event loop (the rest goes on in the next turn, so the loop
 * always breathes) and per second (a console past it waits, never the others).
 */
import { DECODE_PIXELS_PER_SECOND, DECODE_PIXELS_PER_TURN } from '../../limits.js';

export interface DecodeBudgetOptions {
  perTurn?: number;
  perSecond?: number;
  /** Milliseconds, for tests. */
  now?: () => number;
}

export class DecodeBudget {
  private readonly perTurn: number;
  private readonly perSecond: number;
  private readonly now: () => number;
  private turnSpent = 0;
  private windowStart: number;
  private windowSpent = 0;
  private turnOpen = false;

  constructor(options: DecodeBudgetOptions = {}) {
    this.perTurn = options.perTurn ?? DECODE_PIXELS_PER_TURN;
    this.perSecond = options.perSecond ?? DECODE_PIXELS_PER_SECOND;
    this.now = options.now ?? (() => performance.now());
    this.windowStart = this.now();
  }

  spend(pixels: number): void {
    this.turnSpent += pixels;
    this.windowSpent += pixels;
  }

  /** Pixels that may still be written this turn (0 once it is spent). */
  get room(): number {
    return Math.max(0, Math.min(this.perTurn - this.turnSpent, this.perSecond - this.windowSpent));
  }

  /** Work done off the event loop (a background inflate) that decoding waits for. */
  pending: Promise<unknown> | undefined;

  /** Decoding stops until `work` settles (exhausted meanwhile); the caller goes on after it. */
  waitFor(work: Promise<unknown>): void {
    this.pending = work;
  }

  get exhausted(): boolean {
    return this.pending !== undefined || this.room === 0;
  }

  /**
   * How many of `rows` rows of `width` pixels fit in what is left: at least one, so every
   * call makes progress (a row is at most 8192 pixels).
   */
  rowsFor(width: number, rows: number): number {
    return Math.max(1, Math.min(rows, Math.floor(this.room / Math.max(1, width))));
  }

  /**
   * Work is about to start: the turn's count starts again if this is a new turn of the event
   * loop (several 'data' events of one turn share one turn's budget). Returns the milliseconds
   * to wait before working (0: at once).
   */
  begin(): number {
    if (!this.turnOpen) {
      this.turnOpen = true;
      this.turnSpent = 0;
      setImmediate(() => (this.turnOpen = false));
    }
    return this.wait();
  }

  /** Milliseconds until the console's second allows more work: 0 while it has room. */
  wait(): number {
    const now = this.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowSpent = 0;
    }
    return this.windowSpent >= this.perSecond ? Math.max(1, Math.ceil(this.windowStart + 1000 - now)) : 0;
  }
}
