import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, VconsoleError, describeError } from '../errors.js';
import { SharedSource } from '../proxy/shared-source.js';
import type { DialContext, LogLevel, UpstreamSource } from '../proxy/types.js';
import { WrappedSource, sourceChain } from '../proxy/wrapped-source.js';
import { ConsoleHold } from './console-hold.js';
import { joinHelloLine } from './join-hello.js';
import { heldConsoleName } from './held-console-name.js';
import { RECORD_EXTENSION, SOCKET_EXTENSION, processAlive, readHeldRecord, removeStale, type HeldRecord } from './held-record.js';

/** How often a dial looks again after losing a race for the console (another vconsole claimed or left it at once). */
const CLAIM_ATTEMPTS = 3;

interface JoinSourceEvents {
  log: [LogLevel, string];
}

/** How a command joins and holds consoles. */
export interface JoinOptions {
  /** It holds consoles shared view-only (`--view-only`): its record says so, for `ps` and for joiners that act. */
  viewOnly?: boolean;
  /** It acts on the console (`type`, `send`): joining one held view-only is refused, nothing sent. */
  acts?: boolean;
}

/**
 * The join decorator, right above the provider's target: before the provider dials, it asks
 * whether another vconsole of this user holds the console (its socket in the runtime directory
 * answers) and, if so, joins it: the stream comes from that vconsole's hub or shared line, and
 * the cloud is not dialled again, so nobody is kicked. Otherwise it dials the target itself and,
 * when the chain above shares the console (`servesJoinersThrough`), holds it for the others
 * first (ConsoleHold). When the holder goes, a joined stream ends with a line that says so; the
 * next dial takes the console over (a hub or a line that redials is the next holder).
 */
export class JoinSource extends WrappedSource<JoinSourceEvents> {
  private hold?: ConsoleHold;
  private top?: UpstreamSource;
  private released = false;
  /** The holder joined last, when it holds the console view-only: what is typed here goes nowhere. */
  private viewOnlyHolder?: string;

  constructor(
    inner: UpstreamSource,
    private readonly dir: string,
    /** The vconsole command, for `ps`. */
    private readonly command: string,
    private readonly options: JoinOptions = {},
  ) {
    super(inner);
  }

  /** Other vconsoles joining this console are served by `top`'s dial (the chain's top) while it is shared there. */
  servesJoinersThrough(top: UpstreamSource): void {
    this.top = top;
  }

  inputRefused(): string | undefined {
    return this.hold ? undefined : this.viewOnlyHolder && `${this.viewOnlyHolder} holds the console view-only (--view-only)`;
  }

  /** Whether this vconsole holds the console for others now. */
  get holding(): boolean {
    return this.hold !== undefined;
  }

  /** Other vconsoles joined to the console held here. */
  get joinerCount(): number {
    return this.hold?.joinerCount ?? 0;
  }

  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    await this.inner.check?.(signal, admit);
  }

  async dial(context: DialContext): Promise<Duplex> {
    if (this.hold || this.inner.facts.inProcess) return this.inner.dial(context);
    const name = heldConsoleName(this);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const joined = await this.join(name, context);
      if (joined) return joined;
      if (!this.shares() || this.released) break;
      const hold = await this.claim(name, context);
      if (!hold) continue;
      this.hold = hold;
      try {
        return await this.inner.dial(context);
      } catch (err) {
        // A first dial that fails holds nothing; a redial keeps the place (the hub shows "reconnecting").
        if (!context.preserveSession) await this.letGo();
        throw err;
      }
    }
    return this.inner.dial(context);
  }

  async release(): Promise<void> {
    this.released = true;
    await this.letGo();
    await this.inner.release?.();
  }

  private async letGo(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    await hold?.close();
  }

  /** True when something above shares one connection among clients: only then is it held for others. */
  private shares(): boolean {
    if (!this.top) return false;
    return [...sourceChain(this.top)].some((source) => source instanceof SharedSource && source.shares);
  }

  private async claim(name: string, context: DialContext): Promise<ConsoleHold | undefined> {
    const top = this.top as UpstreamSource;
    try {
      const hold = await ConsoleHold.claim(
        this.dir,
        name,
        {
          command: this.command,
          target: this.name,
          provider: this.provider,
          kind: this.facts.consoleType ?? '',
          ...(this.options.viewOnly ? { viewOnly: true } : {}),
        },
        (joiner) => top.dial(joiner),
        context.log,
      );
      if (hold) context.log('debug', 'held for your other vconsoles (vconsole ps lists it)');
      return hold;
    } catch (err) {
      context.log('warn', `cannot hold the console for your other vconsoles: ${describeError(err)}`);
      return undefined;
    }
  }

  /**
   * A stream from the vconsole that holds the console, or undefined when none does (a socket
   * its dead holder left is removed on the way).
   */
  private async join(name: string, context: DialContext): Promise<Duplex | undefined> {
    const socketFile = path.join(this.dir, `${name}${SOCKET_EXTENSION}`);
    const recordFile = path.join(this.dir, `${name}${RECORD_EXTENSION}`);
    let found: fs.Stats;
    try {
      found = fs.lstatSync(socketFile);
    } catch {
      return undefined;
    }
    const { socket, refused } = await connectUnix(socketFile, context.signal);
    const record = readHeldRecord(recordFile);
    // A holder being killed may still have its socket open for a moment: it serves nobody.
    const dying = socket !== undefined && record !== undefined && record.pid !== process.pid && !processAlive(record.pid);
    if (!socket || dying) {
      socket?.destroy();
      // Nothing listens there: its holder died without removing it.
      if (refused || dying) {
        if (record && record.pid !== process.pid && !processAlive(record.pid))
          context.log('info', `${holderOf(record)}, which held the console, is gone; taking the console`);
        removeStale(this.dir, name, found);
      }
      return undefined;
    }
    if (record?.viewOnly && this.options.acts) {
      socket.destroy();
      throw new VconsoleError(`${holderOf(record)} holds the console view-only (--view-only): nothing was sent`, {
        hint: 'act through a vconsole that shares it with keys, or stop that one (vconsole ps lists it)',
      });
    }
    socket.write(joinHelloLine({ replay: context.replay !== false }));
    this.viewOnlyHolder = record?.viewOnly ? holderOf(record) : undefined;
    const watched = record?.viewOnly ? ' view-only (--view-only): it is watched from here, not typed into' : '';
    context.log('info', `joined the console ${holderOf(record)} holds${watched}`);
    // The holder going is said as such: the stream ends with that account, not a bare close.
    socket.once('end', () => socket.destroy(new ConsoleEndedError(holderEnding(record, recordFile))));
    return socket;
  }
}

function holderOf(record: HeldRecord | undefined): string {
  return record ? `vconsole ${record.command} (pid ${record.pid})` : 'another vconsole';
}

/**
 * Why a joined stream ended, told from what the holder left: a holder letting go removes its
 * record before it ends its joiners' streams (ConsoleHold.close); one that died leaves it, naming
 * a process that is gone or exiting; one that runs on and left its record ended this stream alone.
 */
function holderEnding(record: HeldRecord | undefined, recordFile: string): string {
  const now = readHeldRecord(recordFile);
  // A record written just after this vconsole joined is the holder's too.
  const known = record ?? now;
  const holder = holderOf(known);
  if (!known || now?.pid !== known.pid) return `${holder}, which held the console, let it go`;
  if (!processAlive(known.pid)) return `${holder}, which held the console, is gone (it ended without letting go)`;
  return `${holder}, which holds the console, ended this vconsole's connection to it`;
}

/** A connected socket, or none; `refused`: nothing listens on that file (ECONNREFUSED). */
function connectUnix(file: string, signal: AbortSignal): Promise<{ socket?: net.Socket; refused?: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: file });
    const onAbort = () => {
      socket.destroy();
      resolve({});
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      resolve({ socket });
    });
    const onError = (err: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ refused: err.code === 'ECONNREFUSED' });
    };
    socket.once('error', onError);
  });
}
