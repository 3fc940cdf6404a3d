import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { describeError } from '../errors.js';
import { JOINERS_MAX } from '../limits.js';
import { relay } from '../proxy/relay.js';
import type { DialContext, LogLevel } from '../proxy/types.js';
import { RECORD_EXTENSION, SOCKET_EXTENSION, writeHeldRecord, type HeldRecord } from './held-record.js';
import { readJoinHello } from './join-hello.js';

/** Serves one joiner: a fresh stream of the held console, as the holder's own clients get. */
type ServeJoiner = (context: DialContext) => Promise<Duplex>;

let nextClaim = 1;

/**
 * One console this vconsole holds for the others of its user: a unix socket NAME.sock (0600, in
 * the 0700 runtime directory) whose every connection is served by `serve`, and NAME.json beside
 * it for `vconsole ps`. Made with claim(), which fails (undefined) when another vconsole holds
 * the console already.
 */
export class ConsoleHold {
  private readonly joiners = new Set<net.Socket>();
  private recordWrite: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    private readonly socketFile: string,
    private readonly socketStat: fs.Stats,
    private readonly recordFile: string,
    private readonly record: HeldRecord,
    private readonly serve: ServeJoiner,
    private readonly log: (level: LogLevel, message: string) => void,
  ) {
    server.on('connection', (socket) => this.join(socket));
    server.on('error', (err) => log('warn', `the socket other vconsoles join failed: ${describeError(err)}`));
  }

  /**
   * Binds NAME.sock and makes it the console's: bound under a name of its own first, then linked
   * to NAME.sock, which fails when the name is taken, so of two vconsoles claiming at once
   * exactly one holds. Resolves undefined when another holds it.
   */
  static async claim(
    dir: string,
    name: string,
    record: Omit<HeldRecord, 'joiners' | 'since' | 'pid'>,
    serve: ServeJoiner,
    log: (level: LogLevel, message: string) => void,
  ): Promise<ConsoleHold | undefined> {
    const socketFile = path.join(dir, `${name}${SOCKET_EXTENSION}`);
    const claimFile = path.join(dir, `${name}.${process.pid}.${nextClaim++}.claim`);
    const server = net.createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(claimFile, () => {
        server.off('error', reject);
        resolve();
      });
    });
    try {
      fs.chmodSync(claimFile, 0o600);
      fs.linkSync(claimFile, socketFile);
    } catch (err) {
      server.close();
      fs.rmSync(claimFile, { force: true });
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw err;
    }
    fs.rmSync(claimFile, { force: true });
    const full: HeldRecord = { ...record, pid: process.pid, since: new Date().toISOString(), joiners: 0 };
    const hold = new ConsoleHold(
      server,
      socketFile,
      fs.lstatSync(socketFile),
      path.join(dir, `${name}${RECORD_EXTENSION}`),
      full,
      serve,
      log,
    );
    await hold.writeRecord();
    return hold;
  }

  /** Other vconsoles joined now. */
  get joinerCount(): number {
    return this.joiners.size;
  }

  private join(socket: net.Socket): void {
    socket.on('error', () => undefined);
    if (this.closed || this.joiners.size >= JOINERS_MAX) {
      socket.destroy();
      return;
    }
    this.joiners.add(socket);
    const abort = new AbortController();
    socket.once('close', () => {
      abort.abort();
      this.joiners.delete(socket);
      void this.writeRecord();
    });
    void this.writeRecord();
    this.log('info', `another vconsole of yours joined (${this.joiners.size} now)`);
    readJoinHello(socket)
      .then(({ replay }) => this.serve({ signal: abort.signal, log: this.log, peer: 'a vconsole of yours', joined: true, replay }))
      .then(
        (stream) => {
          if (socket.destroyed) return void stream.destroy();
          void relay(socket, stream, { onDownstream: () => undefined, onUpstream: () => undefined });
          socket.resume();
        },
        (err: unknown) => {
          this.log('warn', `a joining vconsole could not be served: ${describeError(err)}`);
          socket.destroy();
        },
      );
  }

  /** The record with the joiners of now; writes are made one after the other, the last one wins. */
  private writeRecord(): Promise<void> {
    this.recordWrite = this.recordWrite
      .then(() => (this.closed ? undefined : writeHeldRecord(this.recordFile, { ...this.record, joiners: this.joiners.size })))
      .catch((err: unknown) => this.log('debug', `cannot write ${this.recordFile}: ${describeError(err)}`));
    return this.recordWrite;
  }

  /**
   * Stops holding: the socket and record are removed, then joiners are disconnected (they take
   * over or end). In that order, so a joiner that finds the record still there when its stream
   * ends knows its holder did not let go but died.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.recordWrite;
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    try {
      const now = fs.lstatSync(this.socketFile);
      if (now.ino === this.socketStat.ino && now.dev === this.socketStat.dev) fs.unlinkSync(this.socketFile);
    } catch {
      // Removed already.
    }
    fs.rmSync(this.recordFile, { force: true });
    for (const socket of this.joiners) socket.destroy();
    this.joiners.clear();
    await closing;
  }
}
