import { EventEmitter } from 'node:events';
import type net from 'node:net';
import { VconsoleError, describeError } from '../errors.js';
import { formatHostPort } from '../net/host-port.js';
import { ClientUpstreams } from './client-upstreams.js';
import { bindListener } from './listener.js';
import { SessionClients } from './session-clients.js';
import type { BoundAddress, ListenOptions, LogLevel, SessionLogEntry, SessionSnapshot, SessionState, UpstreamSource } from './types.js';

export type { BoundAddress, ListenOptions } from './types.js';

export interface ConsoleSessionOptions {
  /**
   * Asked once the console's name is as exact as it gets: by a sharing wrapper between its
   * console's own pre-flight and its shared connection (see UpstreamSource.check), else once
   * the pre-flight has passed, just before listening. Throwing refuses the session: it closes,
   * and start() rejects with what was thrown.
   */
  admit?(session: ConsoleSession): void;
}

/** What start() rejects with when the session was closed before it listened: a cancel, not a failure. */
export class SessionClosedError extends VconsoleError {
  constructor() {
    super('the session was closed before it listened');
    this.name = 'SessionClosedError';
  }
}

export interface ConsoleSessionEvents {
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
  private server?: net.Server;
  private state: SessionState = 'idle';
  private address?: string;
  private port?: number;
  private startedAt?: number;
  private lastError?: string;
  private checkAbort?: AbortController;
  private starting?: Promise<BoundAddress>;
  /** Past admit(): a second session of its console is refused, not this one. */
  private admitted = false;
  private readonly upstreams: ClientUpstreams;
  private readonly clients: SessionClients;
  private closing?: Promise<void>;

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
      isClosed: () => this.state === 'closed',
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
    if (this.state === 'closed') return Promise.reject(new SessionClosedError());
    if (this.state === 'listening' && this.address !== undefined && this.port !== undefined) {
      return Promise.resolve({ address: this.address, port: this.port });
    }
    this.starting ??= this.startOnce(listen).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
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
    this.lastError = undefined;
    this.setState('connecting');
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
    const boundFor = this.source.consoleType;
    const checking = this.check();
    gate?.(checking);
    await checking;
    await this.admitOrClose();
    if (early && this.source.consoleType !== boundFor) await this.typeChanged(listen);
    try {
      const bound = early ?? (await this.listen(listen));
      this.startedAt = Date.now();
      this.setState('listening');
      this.log('info', `listening on ${formatHostPort(bound.address, bound.port)}`);
      return bound;
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** The source's pre-flight; rejects with what start() rejects with. */
  private async check(): Promise<void> {
    try {
      if (this.source.check) {
        this.checkAbort = new AbortController();
        // A sharing wrapper admits before it opens its shared connection (a duplicate must not take the console).
        await this.source.check(this.checkAbort.signal, () => this.admitOnce());
      }
      if (this.state === 'closed') throw new SessionClosedError();
    } catch (err) {
      if (err === this.refusal) {
        await this.close();
        throw err;
      }
      throw this.failure(err);
    } finally {
      this.checkAbort = undefined;
    }
  }

  /** The pre-flight settled another type than the early listener's: what was started there for the old one goes first. */
  private async typeChanged(listen: ListenOptions): Promise<void> {
    // What the caller stops there reports its own failures.
    await Promise.resolve(listen.onTypeChanged?.(this.source.consoleType)).catch(() => undefined);
    if (this.state === 'closed') throw new SessionClosedError();
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
    const listening = this.state === 'listening' || (this.state === 'connecting' && this.server !== undefined);
    if (!listening || this.clients.count > 0) return;
    this.upstreams.dialAhead((level, message) => this.log(level, message));
  }

  /** What admit() threw, while the pre-flight unwinds. */
  private refusal?: unknown;

  private admitOnce(): void {
    if (this.admitted) return;
    try {
      this.options.admit?.(this);
    } catch (refusal) {
      this.refusal = refusal;
      throw refusal;
    }
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
    if (this.state === 'closed') return err instanceof SessionClosedError ? err : new SessionClosedError();
    this.lastError = describeError(err);
    this.setState('error');
    return err;
  }

  /** Binds the listener; the session's address is its own from then on. */
  private async listen(listen: ListenOptions): Promise<BoundAddress> {
    const { server, bound } = await bindListener(listen, (socket) => this.clients.accept(socket));
    // Closed while binding: nothing may be left listening.
    if (this.state === 'closed') {
      server.close();
      throw new SessionClosedError();
    }
    server.on('error', (err) => this.log('error', `listener failed: ${describeError(err)}`));
    this.server = server;
    this.address = bound.address;
    this.port = bound.port;
    return bound;
  }

  /**
   * Stops listening, closes every client and upstream connection, cancels a start under way
   * and releases what the source started for this session. Idempotent: later calls wait for
   * the first.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    this.setState('closed');
    this.checkAbort?.abort();
    this.upstreams.endHold();
    const server = this.server;
    this.server = undefined;
    const closing = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    this.clients.closeAll();
    await closing;
    // A source that cannot free its resources has nothing to tell a closed session's user.
    await this.source.release?.().catch(() => undefined);
  }

  snapshot(): SessionSnapshot {
    return {
      id: this.id,
      name: this.source.name,
      provider: this.source.provider,
      state: this.state,
      address: this.address,
      port: this.port,
      clients: this.clients.count,
      totalClients: this.clients.total,
      bytesIn: this.clients.bytesIn,
      bytesOut: this.clients.bytesOut,
      startedAt: this.startedAt,
      lastError: this.lastError,
      consoleType: this.source.consoleType,
    };
  }

  private setState(state: SessionState): void {
    if (this.state === state) return;
    this.state = state;
    if (state === 'closed' || state === 'error') {
      this.server?.close();
      this.server = undefined;
      this.upstreams.discard();
    }
    this.emitChange();
  }

  private emitChange(): void {
    this.emit('change', this.snapshot());
  }

  log(level: LogLevel, message: string): void {
    this.emit('log', { time: Date.now(), sessionId: this.id, name: this.source.name, level, message });
  }
}
