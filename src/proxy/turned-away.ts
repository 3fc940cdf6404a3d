/**
 * Connections a source turns away unserved (an address held back after wrong passwords, the
 * listener's guesses used up) or that flood it (an address over its share of connections not
 * logged in, each closing an older one of its) come in bursts of hundreds a second: logging each one's `connected` and `disconnected` would flood
 * the log an attacker is being watched through. They are counted instead, and said in one line
 * per window, naming the addresses.
 */

/** Addresses named in one summary; the rest are counted. */
const NAMED_ADDRESSES = 3;

export class TurnedAwayTally {
  private readonly counts = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly say: (line: string) => void,
  ) {}

  /** One more connection from `address` turned away; the window's line follows within windowMs. */
  add(address: string): void {
    this.counts.set(address, (this.counts.get(address) ?? 0) + 1);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.windowMs);
    this.timer.unref();
  }

  /** Says what the window counted (nothing when nothing was). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const entries = [...this.counts.entries()];
    this.counts.clear();
    const total = entries.reduce((sum, [, n]) => sum + n, 0);
    const named = entries.slice(0, NAMED_ADDRESSES).map(([address, n]) => `${n} from ${address}`);
    const others = entries.length - named.length;
    const from = others > 0 ? `${named.join(', ')} and the rest from ${others} other address${others === 1 ? '' : 'es'}` : named.join(', ');
    this.say(
      `turned away ${total} connection${total === 1 ? '' : 's'} (${from}), not logged one by one: ` +
        "held back after wrong passwords or beyond the listener's password guesses, or one more of an address " +
        'over its share of connections not logged in (each closed an older one of its)',
    );
  }

  /** Stops without saying anything more (the session is closing). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.counts.clear();
  }
}
