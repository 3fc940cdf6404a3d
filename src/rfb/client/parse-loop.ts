/**
 * When RfbConsoleClient's parser runs: as bytes arrive, a DecodeBudget's worth a turn of the event
 * loop, the rest in a later turn (after the second's end past the per-second budget, after a
 * background inflate it waits for). Meanwhile the console is not read once
 * DECODE_QUEUE_HIGH_BYTES are queued, so a flood waits in the kernel, not in memory.
 */
import type { Duplex } from 'node:stream';
import { DECODE_QUEUE_HIGH_BYTES } from '../../limits.js';
import type { ByteQueue } from '../wire/byte-queue.js';
import { DecodeBudget, type DecodeBudgetOptions } from './decode-budget.js';

export class ParseLoop {
  readonly budget: DecodeBudget;
  /** The parser's continuation when the budget stopped it. */
  private resumeAt: { cancel(): void } | undefined;
  /** The stream is paused until the parser catches up. */
  private held = false;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * `step` handles the next piece of a message (false when more bytes must come, or the
   * budget is spent); what it throws goes to `fail` and ends the loop.
   */
  constructor(
    private readonly stream: Duplex,
    private readonly queue: ByteQueue,
    private readonly step: () => boolean,
    private readonly fail: (err: unknown) => void,
    budget?: DecodeBudgetOptions,
  ) {
    this.budget = new DecodeBudget(budget);
  }

  /** Bytes were queued: parse them now, or hold the stream while a continuation is due. */
  received(): void {
    if (!this.resumeAt) this.run();
    else if (this.queue.length > DECODE_QUEUE_HIGH_BYTES && !this.held) {
      this.held = true;
      this.stream.pause();
    }
  }

  /** Parses what is queued in the next turn. */
  start(): void {
    this.continueIn(0);
  }

  /** Resolves once everything received so far is parsed (the parser waits for bytes), or the loop stopped. */
  idle(): Promise<void> {
    if (this.stopped || (!this.resumeAt && !this.held && this.stream.readableLength === 0)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.resumeAt?.cancel();
    this.resumeAt = undefined;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private run(): void {
    this.resumeAt = undefined;
    try {
      const wait = this.budget.begin();
      if (wait > 0) return this.continueIn(wait);
      while (!this.stopped) {
        if (this.budget.exhausted) return this.continueLater();
        if (!this.step()) {
          // A decoder stopped by the budget (or waits for a background inflate), not for want of bytes.
          if (this.budget.exhausted) return this.continueLater();
          break;
        }
      }
    } catch (err) {
      this.fail(err);
      return;
    }
    // Everything queued is parsed: read the console again.
    if (this.held) {
      this.held = false;
      this.stream.resume();
    }
    if (this.stream.readableLength === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The parser goes on once the background work it waits for is done, or the budget allows. */
  private continueLater(): void {
    const pending = this.budget.pending;
    if (!pending) return this.continueIn(this.budget.wait());
    let cancelled = false;
    this.resumeAt = { cancel: () => (cancelled = true) };
    void pending.then(() => {
      this.budget.pending = undefined;
      if (cancelled) return;
      this.resumeAt = undefined;
      this.continueIn(0);
    });
  }

  /** The parser goes on in `ms` (0: the next turn of the event loop). */
  private continueIn(ms: number): void {
    if (this.stopped || this.resumeAt) return;
    if (ms === 0) {
      const immediate = setImmediate(() => this.run());
      this.resumeAt = { cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(() => this.run(), ms);
      this.resumeAt = { cancel: () => clearTimeout(timer) };
    }
  }
}
