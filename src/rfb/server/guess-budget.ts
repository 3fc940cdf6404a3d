import { GUESS_BURST, GUESS_REFILL_MS, KNOWN_ADDRESSES_MAX } from '../../limits.js';

/**
 * How many password answers a command checks, across its listeners and whatever address they
 * come from: a token bucket of `burst` guesses, refilled one each `refillMs`. The per-address
 * back-off (auth-backoff.ts) slows one address; a guesser that rotates its source address (a
 * whole IPv6 /48, a botnet, 200 loopback addresses) starts afresh on each and is held here
 * instead. An address that gave the right password in this run is known, and spends nothing: the
 * owner, once in, is never turned away because strangers used up the guesses.
 */
export interface GuessBudgetOptions {
  burst?: number;
  refillMs?: number;
  knownMax?: number;
  now?: () => number;
}

export class GuessBudget {
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly knownMax: number;
  private readonly now: () => number;
  private tokens: number;
  private refilledAt: number;
  /** Addresses that gave the right password, oldest first. */
  private readonly known = new Set<string>();

  constructor(options: GuessBudgetOptions = {}) {
    this.burst = options.burst ?? GUESS_BURST;
    this.refillMs = options.refillMs ?? GUESS_REFILL_MS;
    this.knownMax = options.knownMax ?? KNOWN_ADDRESSES_MAX;
    this.now = options.now ?? Date.now;
    this.tokens = this.burst;
    this.refilledAt = this.now();
  }

  /** Milliseconds until an answer from `address` could be checked; 0: now. */
  wait(address: string): number {
    if (this.known.has(address)) return 0;
    this.refill();
    return this.tokens >= 1 ? 0 : Math.max(1, Math.ceil(this.refilledAt + this.refillMs - this.now()));
  }

  /** An answer from `address` is about to be checked: true once it spent a guess (or needs none). */
  spend(address: string): boolean {
    if (this.wait(address) > 0) return false;
    if (!this.known.has(address)) this.tokens -= 1;
    return true;
  }

  /** `address` gave the right password: from now on its answers spend nothing. */
  knownGood(address: string): void {
    this.known.delete(address);
    this.known.add(address);
    if (this.known.size > this.knownMax) this.known.delete(this.known.values().next().value as string);
  }

  private refill(): void {
    const now = this.now();
    const earned = Math.floor((now - this.refilledAt) / this.refillMs);
    if (earned <= 0) return;
    this.tokens = Math.min(this.burst, this.tokens + earned);
    // A full bucket earns nothing while it waits: the next guess is a whole refill away once spent.
    this.refilledAt = this.tokens >= this.burst ? now : this.refilledAt + earned * this.refillMs;
  }
}
