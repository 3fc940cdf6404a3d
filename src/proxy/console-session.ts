import { EventEmitter } from 'node:events';
import { describeError } from '../errors.js';
import { CLIENT_FAREWELL_GRACE_MS } from '../limits.js';
import { formatHostPort } from '../net/host-port.js';
import { StateMachine } from '../state-machine/state-machine.js';
import { ClientUpstreams } from './client-upstreams.js';
import { bindListener } from './listener.js';
import { sourceChain } from './wrapped-source.js';
import { SessionClients } from './session-clients.js';
import { SESSION_MOVES, SessionClosedError, type SessionPhase } from './session-phase.js';
import type { BoundAddress, ListenOptions, LogLevel, SessionLogEntry, SessionSnapshot, UpstreamSource } from './types.js';

export type { BoundAddress } from './types.js';

interface ConsoleSessionOptions {
  /**
   * Asked once the console's name is as exact as it gets: by a sharing wrapper between its
   * console's own pre-flight and its shared connection (see UpstreamSource.check), else once
   * the pre-flight has passed, just before listening. Throwing refuses the session: it closes,
   * and start() rejects with what was thrown.
   */
  admit?(session: ConsoleSession): void;
}

interface ConsoleSessionEvents {
  /** State, address, clients or error changed. */
  change: [SessionSnapshot];
  /** Bytes moved since the last report (at most every TRAFFIC_REPORT_MS). */
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

let nextSessionId = 1;

/**
 * One console made local: a TCP listener whose every accepted client gets its own fresh
 * upstream, dialled at accept time (so reconnects work and expiring console tokens are
 * never reused).
 */
export class ConsoleSession extends EventEmitter<ConsoleSessionEvents> {
  readonly id = nextSessionId++;
  readonly source: UpstreamSource;
  private readonly options: ConsoleSessionOptions;
  private readonly phase = new StateMachine<SessionPhase>('ConsoleSession', SESSION_MOVES, { kind: 'idle' });
  /** What went wrong last since the last start: the start's failure, or a client's. */
  private lastError?: string;
  /** Past admit(): a second session of its console is refused, not this one. */
  private admitted = false;
  private readonly upstreams: ClientUpstreams;
  private readonly clients: SessionClients;

  constructor(source: UpstreamSource, options: ConsoleSessionOptions = {}) {
    super();
    this.source = source;
    this.options = options;
    this.upstreams = new ClientUpstreams(source);
    this.clients = new SessionClients(source, this.upstreams, {
      log: (level, message) => this.log(level, message),
      recordError: (message) => (this.lastError = message),
      changed: () => this.emitChange(),
      traffic: () => this.emit('traffic', this.snapshot()),
      isClosed: () => this.phase.kind === 'closed',
    });
  }

  get name(): string {
    return this.source.name;
  }

  /**
   * Runs the source's pre-flight, then listens. Rejects (and moves to `error`) when either
   * fails; may be called again after a failure to retry. Calls made while a start is under
   * way share it, listen options included; on a listening session it returns the address.
   * Rejects with SessionClosedError once the session is closed, also when that happens while
   * it starts.
   */
  start(listen: ListenOptions): Promise<BoundAddress> {
    const phase = this.phase.current;
    if (phase.kind === 'closed') return Promise.reject(new SessionClosedError());
    if (phase.kind === 'listening') return Promise.resolve({ ...phase.listener.bound });
    if (phase.kind === 'connecting') return phase.starting;
    this.lastError = undefined;
    // The connecting state holds its start from the moment it begins.
    let begin!: (started: Promise<BoundAddress>) => void;
    const starting = new Promise<BoundAddress>((resolve) => (begin = resolve));
    this.moveTo({ kind: 'connecting', starting });
    begin(this.startOnce(listen));
    return starting;
  }

  private async startOnce(listen: ListenOptions): Promise<BoundAddress> {
    try {
      return await this.startHeld(listen);
    } finally {
      this.upstreams.endHold();
    }
  }

  /** start()'s steps; an early listener's clients are held (ClientUpstreams) until it ends. */
  private async startHeld(listen: ListenOptions): Promise<BoundAddress> {
    // Clients of an early listener wait for the pre-flight from the moment it binds: one that
    // comes while onBound runs (the viewer launching), before the pre-flight began, too.
    let gate: ((checking: Promise<void>) => void) | undefined;
    if (listen.onBound) this.upstreams.holdUntil(new Promise<void>((resolve, reject) => (gate = (c) => void c.then(resolve, reject))));
    let early: BoundAddress | undefined;
    try {
      early = listen.onBound ? await this.listenEarly(listen, listen.onBound) : undefined;
    } catch (err) {
      gate?.(Promise.reject(err instanceof Error ? err : new Error(String(err))));
      throw err;
    }
    const boundFor = this.source.facts.consoleType;
    const checking = this.check();
    gate?.(checking);
    await checking;
    await this.admitOrClose();
    if (early && this.source.facts.consoleType !== boundFor) await this.typeChanged(listen);
    try {
      const bound = early ?? (await this.listen(listen));
      // Closed since it bound (the close closed the listener).
      const listener = this.phase.when('connecting')?.listener;
      if (!listener) throw new SessionClosedError();
      this.moveTo({ kind: 'listening', listener, startedAt: Date.now() });
      this.log('info', `listening on ${formatHostPort(bound.address, bound.port)}`);
      return bound;
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** The source's pre-flight; rejects with what start() rejects with. */
  private async check(): Promise<void> {
    /** What admit() threw, while the pre-flight unwinds. */
    let refused: { refusal: unknown } | undefined;
    const admit = () => {
      try {
        this.admitOnce();
      } catch (refusal) {
        refused = { refusal };
        throw refusal;
      }
    };
    try {
      // A sharing wrapper admits before it opens its shared connection (a duplicate must not take the console).
      if (this.source.check) await this.checkCancellably(this.source.check.bind(this.source), admit);
      if (this.phase.kind === 'closed') throw new SessionClosedError();
    } catch (err) {
      if (refused && err === refused.refusal) {
        await this.close();
        throw err;
      }
      throw this.failure(err);
    }
  }

  /** Runs the pre-flight with a cancel the connecting state holds while it runs (a close aborts it). */
  private async checkCancellably(check: NonNullable<UpstreamSource['check']>, admit: () => void): Promise<void> {
    const checkAbort = new AbortController();
    const connecting = this.phase.when('connecting');
    if (connecting) this.phase.to({ ...connecting, checkAbort });
    try {
      await check(checkAbort.signal, admit);
    } finally {
      const still = this.phase.when('connecting');
      if (still?.checkAbort === checkAbort) this.phase.to({ ...still, checkAbort: undefined });
    }
  }

  /** The pre-flight settled another type than the early listener's: what was started there for the old one goes first. */
  private async typeChanged(listen: ListenOptions): Promise<void> {
    // What the caller stops there reports its own failures.
    await Promise.resolve(listen.onTypeChanged?.(this.source.facts.consoleType)).catch(() => undefined);
    if (this.phase.kind === 'closed') throw new SessionClosedError();
  }

  private async listenEarly(listen: ListenOptions, onBound: NonNullable<ListenOptions['onBound']>): Promise<BoundAddress> {
    let bound: BoundAddress;
    try {
      bound = await this.listen(listen);
    } catch (err) {
      throw this.failure(err);
    }
    // What the caller started there reports its own failures.
    await Promise.resolve(onBound(bound)).catch(() => undefined);
    return bound;
  }

  /**
   * Dials one upstream now for the client about to connect (a viewer just launched), so the
   * dial overlaps the viewer's start-up. Only on a listening session without clients: on a
   * console that keeps one session per VM it would take the session from a viewer already
   * there. An upstream not taken within DIAL_AHEAD_TTL_MS is closed.
   */
  dialAhead(): void {
    // Listening, or listening early while the pre-flight runs: the dial then overlaps it too.
    const phase = this.phase.current;
    const listening = phase.kind === 'listening' || (phase.kind === 'connecting' && phase.listener !== undefined);
    if (!listening || this.clients.count > 0) return;
    this.upstreams.dialAhead((level, message) => this.log(level, message));
  }

  private admitOnce(): void {
    if (this.admitted) return;
    this.options.admit?.(this);
    this.admitted = true;
  }

  private async admitOrClose(): Promise<void> {
    try {
      this.admitOnce();
    } catch (refusal) {
      await this.close();
      throw refusal;
    }
  }

  /** What start() rejects with: a cancel once the session is closed, else the error, recorded. */
  private failure(err: unknown): unknown {
    if (this.phase.kind === 'closed') return err instanceof SessionClosedError ? err : new SessionClosedError();
    this.lastError = describeError(err);
    this.moveTo({ kind: 'error' });
    return err;
  }

  /** Binds the listener; the session's address is its own from then on. */
  private async listen(listen: ListenOptions): Promise<BoundAddress> {
    const { server, bound } = await bindListener(listen, (socket) => this.clients.accept(socket));
    // Closed while binding: nothing may be left listening.
    const connecting = this.phase.when('connecting');
    if (!connecting) {
      server.close();
      throw new SessionClosedError();
    }
    server.on('error', (err) => this.log('error', `listener failed: ${describeError(err)}`));
    this.phase.to({ ...connecting, listener: { server, bound } });
    return bound;
  }

  /**
   * Stops listening, closes every client and upstream connection, cancels a start under way
   * and releases what the source started for this session. Idempotent: later calls wait for
   * the first.
   */
  close(): Promise<void> {
    const closed = this.phase.when('closed');
    if (closed) return closed.closing;
    // The closed state holds its close from the moment it begins.
    let begin!: (done: Promise<void>) => void;
    const closing = new Promise<void>((resolve) => (begin = resolve));
    const left = this.moveTo({ kind: 'closed', closing });
    begin(this.closeOnce(left));
    return closing;
  }

  /** What close() does after the move, which closed the listener: `left` is the state it closed. */
  private async closeOnce(left: SessionPhase): Promise<void> {
    if (left.kind === 'connecting') left.checkAbort?.abort();
    this.upstreams.endHold();
    // Ended the way their protocol ends (TLS: close_notify), not cut: a viewer then tells no broken connection.
    const ending = [...sourceChain(this.source)].filter((source) => source.endClients !== undefined);
    for (const source of ending) source.endClients?.();
    await this.clients.closeAll(ending.length > 0 ? CLIENT_FAREWELL_GRACE_MS : 0);
    // A source that cannot free its resources has nothing to tell a closed session's user.
    await this.source.release?.().catch(() => undefined);
  }

  /** Its address while it has a listener; since when it listens while it does. */
  snapshot(): SessionSnapshot {
    const phase = this.phase.current;
    const bound = phase.kind === 'connecting' || phase.kind === 'listening' ? phase.listener?.bound : undefined;
    return {
      id: this.id,
      name: this.source.name,
      provider: this.source.provider,
      state: phase.kind,
      address: bound?.address,
      port: bound?.port,
      clients: this.clients.count,
      totalClients: this.clients.total,
      bytesIn: this.clients.bytesIn,
      bytesOut: this.clients.bytesOut,
      startedAt: phase.kind === 'listening' ? phase.startedAt : undefined,
      lastError: this.lastError,
      consoleType: this.source.facts.consoleType,
    };
  }

  /**
   * A move to another kind of state, told; one to `closed` or `error` closes the listener.
   * Returns the state left. A move within `connecting` goes through `phase.to` alone and is not
   * told: the listener bound early shows in the next snapshot.
   */
  private moveTo(next: SessionPhase): SessionPhase {
    const left = this.phase.to(next);
    if (next.kind === 'closed' || next.kind === 'error') {
      if (left.kind === 'connecting' || left.kind === 'listening') left.listener?.server.close();
      this.upstreams.discard();
    }
    this.emitChange();
    return left;
  }

  private emitChange(): void {
    this.emit('change', this.snapshot());
  }

  log(level: LogLevel, message: string): void {
    this.emit('log', { time: Date.now(), sessionId: this.id, name: this.source.name, level, message });
  }
}
