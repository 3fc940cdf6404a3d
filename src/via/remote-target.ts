// A console resolved and dialled on the bastion: here it is a ConsoleTarget like any other (the
// data path, the hub, recordings and viewers see nothing else), whose check() and dial() go
// through the via connection.
import type { Duplex } from 'node:stream';
import { VconsoleError } from '../errors.js';
import type { ConsoleType } from '../console-kinds/index.js';
import type { DialContext } from '../proxy/types.js';
import type { ConnectionFileSettings, ConsoleTarget } from '../targets/types.js';
import type { ViaConnection } from './connection.js';
import { isFarTarget, type FarTarget } from './protocol.js';
import type { ViaLink } from './ssh-link.js';
import { untilAborted } from '../abort-race.js';
import { FarError } from './wire-error.js';

export class RemoteTarget implements ConsoleTarget {
  readonly input: string;
  name: string;
  readonly provider: string;
  consoleType: ConsoleType;
  consoleTypeTentative?: boolean;
  /** As the far target's: `open --via` launches a viewer for KubeVirt's VNC guess while the far pre-flight runs. */
  readonly consoleTypeGuessHolds?: boolean;
  readonly exclusive?: boolean;
  readonly consolePasswordPerDial?: boolean;
  /** The far side makes the connection file (Proxmox VE's spiceproxy answer); the viewer here opens it. */
  readonly connectionFile?: (signal: AbortSignal) => Promise<ConnectionFileSettings>;
  /** The far side's digest of the console's identity, when its target has one. */
  private readonly farIdentity?: string;
  private handle: number;
  private generation: number;

  constructor(
    private readonly link: ViaLink,
    far: FarTarget,
    /** The flags the far side resolves with again after a new connection. */
    private readonly flags: Record<string, unknown>,
  ) {
    this.input = far.input;
    this.name = far.name;
    this.provider = far.provider;
    this.consoleType = far.consoleType as ConsoleType;
    this.consoleTypeTentative = far.consoleTypeTentative;
    this.consoleTypeGuessHolds = far.consoleTypeGuessHolds;
    this.exclusive = far.exclusive;
    this.consolePasswordPerDial = far.consolePasswordPerDial;
    if (far.connectionFile) this.connectionFile = (signal) => this.farConnectionFile(signal);
    this.farIdentity = far.identity;
    this.handle = far.handle;
    this.generation = link.generation;
  }

  /**
   * Always the bastion's: a far console with no identity of its own (tcp://127.0.0.1:5900, an
   * OpenStack server) is not the console of the same name here, which another vconsole would
   * otherwise join (src/holding). The name is read when compared, as the data path's default is.
   */
  get identity(): string {
    return `via:${this.link.host}:${this.farIdentity ?? `${this.provider}:${this.name}`}`;
  }

  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    const connection = await this.attached();
    const checked = await untilAborted(
      this.fromFar(connection.request('check', { handle: this.handle })),
      signal,
      () => signal.reason as Error,
    );
    this.update(checked);
    admit?.();
  }

  async dial(context: DialContext): Promise<Duplex> {
    const connection = await this.attached();
    const opening = this.fromFar(connection.open({ handle: this.handle, preserveSession: context.preserveSession ?? false }, context.log));
    // A stream that opens after its client went away is closed at once.
    opening.then(
      (opened) => context.signal.aborted && opened.destroy(),
      () => undefined,
    );
    const stream = await untilAborted(opening, context.signal, () => context.signal.reason as Error);
    if (context.signal.aborted) {
      stream.destroy();
      throw context.signal.reason;
    }
    stream.on('far-log', (level: 'debug' | 'info' | 'warn' | 'error', message: string) => context.log(level, message));
    return stream;
  }

  private async farConnectionFile(signal: AbortSignal): Promise<ConnectionFileSettings> {
    const connection = await this.attached();
    const settings = await untilAborted(
      this.fromFar(connection.request('connection-file', { handle: this.handle })),
      signal,
      () => signal.reason as Error,
    );
    if (!settings || typeof settings !== 'object' || Array.isArray(settings))
      throw new VconsoleError(`${this.link.host} answered no connection file for ${this.name}`);
    return Object.fromEntries(
      Object.entries(settings).filter((e): e is [string, string | number] => typeof e[1] === 'string' || typeof e[1] === 'number'),
    );
  }

  async release(): Promise<void> {
    if (this.generation !== this.link.generation) return;
    const connection = await this.link.connection().catch(() => undefined);
    await connection?.request('release', { handle: this.handle }).catch(() => undefined);
  }

  /** The connection, with this target's far handle valid on it: resolved there again after a new connection. */
  private async attached(): Promise<ViaConnection> {
    const connection = await this.link.connection();
    if (this.generation === this.link.generation) return connection;
    const typed = this.consoleTypeTentative ? this.input : `${this.input}#${this.consoleType}`;
    const result = await connection.request('resolve', { inputs: [typed], flags: this.flags });
    const far: unknown = Array.isArray(result) ? (result as unknown[])[0] : undefined;
    if (!isFarTarget(far)) throw new VconsoleError(`${this.link.host} did not resolve the console again`);
    this.handle = far.handle;
    this.generation = this.link.generation;
    return connection;
  }

  /** What the far side refused (a pre-flight, a dial), said to come from the bastion. */
  private fromFar<T>(asked: Promise<T>): Promise<T> {
    return asked.catch((err: unknown) => {
      throw err instanceof FarError ? err.from(this.link.host) : err;
    });
  }

  private update(result: unknown): void {
    if (!isFarTarget(result)) return;
    this.name = result.name;
    this.consoleType = result.consoleType as ConsoleType;
    this.consoleTypeTentative = result.consoleTypeTentative;
  }
}
