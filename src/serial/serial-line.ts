import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, ConsoleRefusedError, VconsoleError, describeError } from '../errors.js';
import { Backoff, pause } from '../retry/backoff.js';
import { IllegalTransitionError, StateMachine, type Transitions } from '../state-machine/state-machine.js';
import { Scrollback } from './scrollback.js';
import type { DialContext, LogLevel, UpstreamSource } from '../proxy/types.js';

/** First pause between two tries to reach a serial console; doubled up to RETRY_MAX_MS (src/retry/backoff.ts). */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
/** A dial that has produced nothing by then counts as failed (and is retried while waiting). */
const DIAL_TIMEOUT_MS = 30_000;

type SerialState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** A line's state; only an open line has a console to read and write. */
export type SerialPhase =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'open'; readonly upstream: Duplex }
  | { readonly kind: 'reconnecting' }
  | { readonly kind: 'closed' };

/** The moves of a line; anything else is a bug, refused (exported for its test). A line starts once. */
export const SERIAL_MOVES: Transitions<SerialPhase> = {
  connecting: ['open', 'closed'],
  open: ['reconnecting', 'closed'],
  reconnecting: ['open', 'closed'],
  closed: [],
};

export interface SerialLineOptions {
  /**
   * How long to keep trying, at start and after the console drops (VM rebooted, migrated,
   * replaced by another client): 0 fails at once. Counted from the first failure of each run.
   */
  waitMs?: number;
  scrollbackBytes?: number;
}

interface SerialLineEvents {
  /** Bytes the VM printed, as they came. */
  output: [Buffer];
  state: [SerialState];
  /** The line gave up (or was closed): no more output. `error` says why, unless closed by us. */
  end: [Error | undefined];
  log: [LogLevel, string];
}

/**
 * One serial console held open: it reads the VM's output all the time (a serial line that is
 * not read stalls the guest) into a bounded scrollback, forwards what is typed, and when the
 * console drops it dials again with back-off while `waitMs` allows. A serial line is silent
 * until someone types, so nothing here waits for a first byte.
 */
export class SerialLine extends EventEmitter<SerialLineEvents> {
  readonly scrollback: Scrollback;
  private readonly phase = new StateMachine<SerialPhase>('SerialLine', SERIAL_MOVES, { kind: 'connecting' });
  private readonly stop = new AbortController();
  private readonly waitMs: number;
  /** Reading the console is held while a local client catches up (see SharedSerialSource). */
  private held = false;

  constructor(
    readonly source: UpstreamSource,
    options: SerialLineOptions = {},
  ) {
    super();
    this.waitMs = options.waitMs ?? 0;
    this.scrollback = new Scrollback(options.scrollbackBytes);
  }

  get name(): string {
    return this.source.name;
  }

  get currentState(): SerialState {
    return this.phase.kind;
  }

  private get closed(): boolean {
    return this.phase.kind === 'closed';
  }

  /**
   * Resolves once the console is open; rejects with the last error when waiting ran out.
   * `checked`: the caller has just run the source's pre-flight, so the first dial skips it.
   */
  async start(options: { checked?: boolean } = {}): Promise<void> {
    await this.connect(options.checked);
  }

  /** Sends typed bytes to the VM; dropped (false) while the console is not open. */
  write(bytes: Buffer): boolean {
    const open = this.phase.when('open');
    if (!open) return false;
    open.upstream.write(bytes);
    return true;
  }

  /**
   * Stops (true) or resumes (false) reading the console: the backpressure of a client that is
   * behind reaches the console instead of a queue growing here. Kept across reconnects.
   */
  hold(on: boolean): void {
    if (this.held === on) return;
    this.held = on;
    const upstream = this.phase.when('open')?.upstream;
    if (on) upstream?.pause();
    else upstream?.resume();
  }

  /** Closes the console for good. Idempotent. */
  close(): void {
    if (this.closed) return;
    const left = this.moveTo({ kind: 'closed' });
    this.stop.abort();
    if (left.kind === 'open') left.upstream.destroy();
    this.emit('end', undefined);
  }

  /** `reconnect`: the console dropped under the line, which takes it back unasked (DialContext). */
  private async connect(checked = false, reconnect?: DialContext['reconnect']): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    const retries = new Backoff({ firstMs: RETRY_FIRST_MS, maxMs: RETRY_MAX_MS });
    let lastMessage: string | undefined;
    for (;;) {
      let upstream: Duplex;
      try {
        upstream = await this.dialOnce(checked, reconnect);
      } catch (err) {
        checked = false;
        if (this.closed) throw new VconsoleError('cancelled');
        // A usage error or a refused token will not change by waiting.
        const retryable = !(err instanceof VconsoleError && err.exitCode === 2) && !(err instanceof ConsoleRefusedError);
        const left = deadline - Date.now();
        if (!retryable || left <= 0) throw err;
        // The reason only: its usual hint ("start it and retry") is what waiting does.
        const message = err instanceof VconsoleError ? err.message : describeError(err);
        if (message !== lastMessage) this.emit('log', 'warn', `${message}; trying again for up to ${Math.ceil(left / 1000)} s`);
        lastMessage = message;
        await pause(Math.min(retries.next(), left), this.stop.signal);
        continue;
      }
      // Outside the try: a move the table refuses is a bug to hear of, not a failed dial to retry.
      this.adopt(upstream);
      return;
    }
  }

  private async dialOnce(checked: boolean, reconnect: DialContext['reconnect']): Promise<Duplex> {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]);
    if (!checked) await this.source.check?.(signal);
    return this.source.dial({ signal, log: (level, message) => this.emit('log', level, message), reconnect });
  }

  private adopt(upstream: Duplex): void {
    if (!this.phase.can('open')) {
      upstream.destroy();
      // Closed while it dialled: a cancel. Open already: a second start, a bug.
      if (this.closed) return;
      throw new IllegalTransitionError(this.phase.name, this.phase.kind, 'open');
    }
    let failure: Error | undefined;
    upstream.on('data', (chunk: Buffer) => {
      this.scrollback.write(chunk);
      this.emit('output', chunk);
    });
    upstream.on('error', (err) => {
      failure = err;
    });
    upstream.once('close', () => void this.dropped(upstream, failure));
    if (this.held) upstream.pause();
    this.moveTo({ kind: 'open', upstream });
  }

  private async dropped(upstream: Duplex, failure: Error | undefined): Promise<void> {
    if (this.phase.when('open')?.upstream !== upstream) return;
    const ending = howItEnded(failure);
    // A refusal seen only after the console was handed over (a proxy slower to hang up than the
    // dial's settling wait) is still a refusal: told in its own words, and final like one at the dial.
    if (this.waitMs <= 0 || failure instanceof ConsoleRefusedError) {
      this.moveTo({ kind: 'closed' });
      this.emit('end', ending);
      return;
    }
    this.emit('log', 'warn', `${ending.message}; reconnecting`);
    this.moveTo({ kind: 'reconnecting' });
    try {
      await this.connect(false, { ending: failure });
      this.emit('log', 'info', 'reconnected');
    } catch (err) {
      if (this.closed) return;
      this.moveTo({ kind: 'closed' });
      this.emit('end', err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Every change of state, told; returns the state left. */
  private moveTo(next: SerialPhase): SerialPhase {
    const left = this.phase.to(next);
    this.emit('state', next.kind);
    return left;
  }
}

/**
 * The console's end in words: a refusal as it is, the transport's own account when it gave one
 * (a websocket's close code and reason, a ping timeout), else what the socket's failure says, else a plain close.
 */
function howItEnded(failure: Error | undefined): VconsoleError {
  if (failure instanceof ConsoleRefusedError) return failure;
  const hint = 'another client may have taken it over, or the VM stopped; --wait reconnects';
  if (failure instanceof ConsoleEndedError)
    return new VconsoleError(failure.message, { hint: failure.hint ?? '--wait reconnects', cause: failure });
  const why = failure ? `: ${describeError(failure)}` : '';
  return new VconsoleError(`the console closed${why}`, { hint, cause: failure });
}
