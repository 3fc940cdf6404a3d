/** One console URL and when it was asked for; `url` settles once Nova has answered. */
export interface ConsoleUrlGrant {
  readonly url: Promise<string>;
  readonly at: number;
}

/**
 * One console URL shared by every connection that asks while it is young (a SPICE session's
 * burst of channels), so Nova is asked once per burst rather than once per channel. A request
 * still under way is shared too; one that fails is forgotten so the next connection asks again.
 */
export class SharedConsoleUrl {
  private current?: ConsoleUrlGrant;

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps a URL obtained at `at` elsewhere (the `auto` pre-flight's) for the connections to come. */
  offer(url: string, at: number): void {
    this.current = { url: Promise.resolve(url), at };
  }

  /** The young URL, or a new one from `ask`, which every caller shares until it ages. */
  get(ask: () => Promise<string>): ConsoleUrlGrant {
    const current = this.current;
    if (current && this.now() - current.at < this.maxAgeMs) return current;
    const grant: ConsoleUrlGrant = { url: ask(), at: this.now() };
    grant.url.catch(() => this.drop(grant));
    this.current = grant;
    return grant;
  }

  /** Forgets `grant` (its token was refused) unless another has replaced it already. */
  drop(grant: ConsoleUrlGrant): void {
    if (this.current === grant) this.current = undefined;
  }
}
