/**
 * A console session's clients, each from its accept to its farewell line: its upstream opened
 * (ClientUpstreams: dialled ahead, fresh, or refused while an early listener's pre-flight
 * settles), the relay between them, the bytes it moved, and who took over whose session on a
 * console that keeps one. Connections a source turns away unserved are counted, not logged.
 */
import type net from 'node:net';
import { describeError } from '../errors.js';
import { DIAL_TIMEOUT_MS, TRAFFIC_REPORT_MS, TURNED_AWAY_SUMMARY_MS } from '../limits.js';
import { formatHostPort } from '../net/host-port.js';
import type { ClientUpstreams, Refusal } from './client-upstreams.js';
import type { ClientUpstream } from './prepared-upstream.js';
import { relay } from './relay.js';
import { farewell, takeOverRivals, type Connection, type Farewell } from './session-connection.js';
import { TurnedAwayTally } from './turned-away.js';
import type { LogLevel, UpstreamSource } from './types.js';
import { sourceChain } from './wrapped-source.js';

/** The line of a client that went while its upstream was being opened. */
const GONE_BEFORE_OPEN: Farewell = { level: 'info', message: 'disconnected before the console opened' };

/** What serving its clients needs of the session. */
interface SessionClientsHost {
  log(level: LogLevel, message: string): void;
  /** What the session's error now says (a client's console failed). */
  recordError(message: string): void;
  /** A client came, opened or went. */
  changed(): void;
  /** Bytes moved; told at most every TRAFFIC_REPORT_MS. */
  traffic(): void;
  /** The session is closed: clients going are not said one by one. */
  isClosed(): boolean;
}

export class SessionClients {
  /** Live clients only: finish() removes each one as it closes. */
  private readonly connections = new Map<number, Connection>();
  private nextConnectionId = 1;
  private totalClients = 0;
  /** Bytes to the clients, and from them towards the console. */
  private downstreamBytes = 0;
  private upstreamBytes = 0;
  private trafficTimer?: NodeJS.Timeout;
  private readonly turnedAway: TurnedAwayTally;

  constructor(
    private readonly source: UpstreamSource,
    private readonly upstreams: ClientUpstreams,
    private readonly host: SessionClientsHost,
  ) {
    this.turnedAway = new TurnedAwayTally(TURNED_AWAY_SUMMARY_MS, (line) => host.log('warn', line));
  }

  /** Clients connected now. */
  get count(): number {
    return this.connections.size;
  }

  /** Clients accepted so far. */
  get total(): number {
    return this.totalClients;
  }

  get bytesIn(): number {
    return this.downstreamBytes;
  }

  get bytesOut(): number {
    return this.upstreamBytes;
  }

  accept(socket: net.Socket): void {
    const id = this.nextConnectionId++;
    const peer = formatHostPort(socket.remoteAddress ?? '?', socket.remotePort ?? 0);
    const rivals = [...this.connections.values()].filter((c) => c.state === 'open');
    // A guessing burst's connections, refused unserved, are counted, not logged one by one.
    const quiet = [...sourceChain(this.source)].some((source) => source.turnsAway?.(peer));
    const connection: Connection = { id, socket, peer, abort: new AbortController(), state: 'dialling', rivals, quiet };
    this.connections.set(id, connection);
    this.totalClients++;
    if (quiet) this.turnedAway.add(socket.remoteAddress ?? '?');
    else this.host.log('info', `client ${id} connected from ${peer}`);
    this.host.changed();
    socket.on('error', () => undefined); // reported through relay or close below
    socket.once('close', () => connection.abort.abort());
    void this.connect(connection);
  }

  /**
   * Closes every client and its upstream, and says no more. With `graceMs`, the clients whose
   * relays are passing on an end first get that long to close by themselves.
   */
  async closeAll(graceMs = 0): Promise<void> {
    clearTimeout(this.trafficTimer);
    this.turnedAway.stop();
    const open = [...this.connections.values()].filter((connection) => !connection.socket.destroyed);
    if (graceMs > 0 && open.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(open.map((connection) => socketClosed(connection.socket))), graceOver]);
      clearTimeout(timer);
    }
    for (const connection of this.connections.values()) {
      connection.abort.abort();
      connection.socket.destroy();
      connection.upstream?.destroy();
    }
  }

  private async connect(connection: Connection): Promise<void> {
    const { socket } = connection;
    const timeout = AbortSignal.timeout(DIAL_TIMEOUT_MS);
    const signal = AbortSignal.any([connection.abort.signal, timeout]);
    let opened: ClientUpstream | Refusal;
    try {
      opened = await this.upstreams.open({
        signal,
        log: (level, message) => this.host.log(level, message),
        peer: connection.peer,
      });
      if ('refused' in opened) {
        // It waited for a pre-flight that failed (the session's error says why) or changed the type;
        // then it is closed once what came for the old type has been stopped (or the session closed).
        if (opened.closeAfter) await opened.closeAfter;
        socket.destroy();
        this.finish(connection, { level: 'info', message: `closed: ${opened.refused}` });
        return;
      }
    } catch (err) {
      socket.destroy();
      if (connection.abort.signal.aborted) {
        this.finish(connection, GONE_BEFORE_OPEN);
        return;
      }
      const message = timeout.aborted ? 'timed out opening the console' : describeError(err);
      this.host.recordError(message);
      this.host.log('error', `client ${connection.id}: ${message}`);
      this.finish(connection);
      return;
    }
    const { upstream, head } = opened;
    if (connection.abort.signal.aborted) {
      upstream.destroy();
      this.finish(connection, GONE_BEFORE_OPEN);
      return;
    }
    connection.upstream = upstream;
    connection.state = 'open';
    this.noteReplacement(connection);
    this.host.changed();
    for (const chunk of head) {
      this.downstreamBytes += chunk.length;
      socket.write(chunk);
    }
    const relaying = relay(socket, upstream, {
      onDownstream: (n) => {
        this.downstreamBytes += n;
        this.noteTraffic();
      },
      onUpstream: (n) => {
        this.upstreamBytes += n;
        this.noteTraffic();
      },
    });
    // An upstream opened ahead comes paused; its bytes flow once the relay holds it.
    upstream.resume();
    const result = await relaying;
    connection.closedBy = result.closedBy;
    if (result.closedBy === 'upstream' && result.error) this.host.recordError(describeError(result.error));
    this.finish(connection, farewell(result, connection.replacedBy));
  }

  /** Says which clients a client whose upstream just opened took the VM's one session from. */
  private noteReplacement(connection: Connection): void {
    if (!this.source.facts.exclusive) return;
    const replaced = takeOverRivals(connection);
    if (replaced.length === 0) return;
    this.host.log(
      'warn',
      `client ${connection.id} replaces the console session of client ${replaced.join(', ')}: the console keeps one session at a time`,
    );
  }

  private finish(connection: Connection, farewellLine?: Farewell): void {
    if (connection.state === 'closed') return;
    connection.state = 'closed';
    this.connections.delete(connection.id);
    if (farewellLine && !connection.quiet && !this.host.isClosed())
      this.host.log(farewellLine.level, `client ${connection.id} ${farewellLine.message}`);
    this.host.changed();
  }

  private noteTraffic(): void {
    if (this.trafficTimer) return;
    this.trafficTimer = setTimeout(() => {
      this.trafficTimer = undefined;
      this.host.traffic();
    }, TRAFFIC_REPORT_MS);
    this.trafficTimer.unref();
  }
}

function socketClosed(socket: net.Socket): Promise<void> {
  return socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once('close', () => resolve()));
}
