import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { describeError } from '../errors.js';
import { relay } from './relay.js';
import type {
  ConnectionSnapshot,
  LogLevel,
  SessionLogEntry,
  SessionSnapshot,
  SessionState,
  UpstreamSource,
} from './types.js';

/** How often, at most, a session reports traffic while bytes flow. No bytes, no timer. */
export const TRAFFIC_REPORT_MS = 250;
/** A dial that has not produced an upstream by then fails the client. */
const DIAL_TIMEOUT_MS = 30_000;

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export interface ConsoleSessionEvents {
  /** State, address, clients or error changed. */
  change: [SessionSnapshot];
  /** Bytes moved since the last report (at most every TRAFFIC_REPORT_MS). */
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

interface Connection {
  id: number;
  socket: net.Socket;
  upstream?: Duplex;
  abort: AbortController;
  snapshot: ConnectionSnapshot;
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
  private server?: net.Server;
  /** Live clients only: finish() removes each one as it closes. */
  private readonly connections = new Map<number, Connection>();
  private nextConnectionId = 1;
  private state: SessionState = 'idle';
  private address?: string;
  private port?: number;
  private startedAt?: number;
  private lastError?: string;
  private totalClients = 0;
  private bytesIn = 0;
  private bytesOut = 0;
  private trafficTimer?: NodeJS.Timeout;
  private checkAbort?: AbortController;

  constructor(source: UpstreamSource) {
    super();
    this.source = source;
  }

  get name(): string {
    return this.source.name;
  }

  /**
   * Runs the source's pre-flight, then listens. Rejects (and moves to `error`) when either
   * fails; may be called again after a failure to retry.
   */
  async start(listen: ListenOptions): Promise<{ address: string; port: number }> {
    if (this.state === 'listening' && this.address && this.port !== undefined) {
      return { address: this.address, port: this.port };
    }
    this.lastError = undefined;
    this.setState('connecting');
    try {
      if (this.source.check) {
        this.checkAbort = new AbortController();
        await this.source.check(this.checkAbort.signal);
      }
      if (this.state === 'closed') throw new Error('session closed');
      const bound = await this.listen(listen);
      this.address = bound.address;
      this.port = bound.port;
      this.startedAt = Date.now();
      this.setState('listening');
      this.log('info', `listening on ${formatHostPort(bound.address, bound.port)}`);
      return bound;
    } catch (err) {
      if (this.state !== 'closed') {
        this.lastError = describeError(err);
        this.setState('error');
      }
      throw err;
    } finally {
      this.checkAbort = undefined;
    }
  }

  private listen(listen: ListenOptions): Promise<{ address: string; port: number }> {
    const server = net.createServer({ pauseOnConnect: true, noDelay: true }, (socket) => this.accept(socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: listen.host, port: listen.port, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', (err) => this.log('error', `listener failed: ${describeError(err)}`));
        this.server = server;
        const info = server.address() as net.AddressInfo;
        resolve({ address: info.address, port: info.port });
      });
    });
  }

  private accept(socket: net.Socket): void {
    const id = this.nextConnectionId++;
    const remote = formatHostPort(socket.remoteAddress ?? '?', socket.remotePort ?? 0);
    const connection: Connection = {
      id,
      socket,
      abort: new AbortController(),
      snapshot: { id, remote, state: 'dialling', openedAt: Date.now(), bytesIn: 0, bytesOut: 0 },
    };
    const others = [...this.connections.keys()];
    this.connections.set(id, connection);
    this.totalClients++;
    this.log('info', `client ${id} connected from ${remote}`);
    if (this.source.exclusive && others.length > 0) {
      this.log(
        'warn',
        `client ${id} replaces the console session of client ${others.join(', ')}: ` +
          'the VM keeps one VNC session at a time',
      );
    }
    this.emitChange();
    socket.on('error', () => undefined); // reported through relay or close below
    socket.once('close', () => connection.abort.abort());
    void this.connect(connection);
  }

  private async connect(connection: Connection): Promise<void> {
    const { socket, snapshot } = connection;
    const timeout = AbortSignal.timeout(DIAL_TIMEOUT_MS);
    const signal = AbortSignal.any([connection.abort.signal, timeout]);
    let upstream: Duplex;
    try {
      upstream = await this.source.dial({ signal, log: (level, message) => this.log(level, message) });
    } catch (err) {
      if (!connection.abort.signal.aborted) {
        const message = timeout.aborted ? 'timed out opening the console' : describeError(err);
        this.lastError = message;
        this.log('error', `client ${connection.id}: ${message}`);
      }
      socket.destroy();
      this.finish(connection);
      return;
    }
    if (connection.abort.signal.aborted) {
      upstream.destroy();
      this.finish(connection);
      return;
    }
    connection.upstream = upstream;
    snapshot.state = 'open';
    this.emitChange();
    const result = await relay(socket, upstream, {
      onDownstream: (n) => {
        snapshot.bytesIn += n;
        this.bytesIn += n;
        this.noteTraffic();
      },
      onUpstream: (n) => {
        snapshot.bytesOut += n;
        this.bytesOut += n;
        this.noteTraffic();
      },
    });
    if (result.error && this.state !== 'closed') {
      const message = describeError(result.error);
      if (result.closedBy === 'upstream') this.lastError = message;
      this.log('warn', `client ${connection.id}: ${result.closedBy === 'upstream' ? 'console' : 'viewer'} connection failed: ${message}`);
    }
    this.finish(connection);
  }

  private finish(connection: Connection): void {
    if (connection.snapshot.state === 'closed') return;
    connection.snapshot.state = 'closed';
    this.connections.delete(connection.id);
    if (this.state !== 'closed') this.log('info', `client ${connection.id} disconnected`);
    this.emitChange();
  }

  private noteTraffic(): void {
    if (this.trafficTimer) return;
    this.trafficTimer = setTimeout(() => {
      this.trafficTimer = undefined;
      this.emit('traffic', this.snapshot());
    }, TRAFFIC_REPORT_MS);
    this.trafficTimer.unref();
  }

  /** Stops listening and closes every client and upstream connection. Idempotent. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    this.checkAbort?.abort();
    clearTimeout(this.trafficTimer);
    const server = this.server;
    this.server = undefined;
    const closing = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const connection of this.connections.values()) {
      connection.abort.abort();
      connection.socket.destroy();
      connection.upstream?.destroy();
    }
    await closing;
  }

  snapshot(): SessionSnapshot {
    return {
      id: this.id,
      name: this.source.name,
      provider: this.source.provider,
      state: this.state,
      address: this.address,
      port: this.port,
      clients: this.connections.size,
      totalClients: this.totalClients,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      startedAt: this.startedAt,
      lastError: this.lastError,
      connections: [...this.connections.values()].map((c) => ({ ...c.snapshot })),
    };
  }

  private setState(state: SessionState): void {
    if (this.state === state) return;
    this.state = state;
    if (state === 'closed' || state === 'error') {
      this.server?.close();
      this.server = undefined;
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

/** `127.0.0.1:5901`, `[::1]:5901`. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
