// A console resolved and dialled on the bastion: here it is a ConsoleTarget like any other (the
// data path, the hub, recordings and viewers see nothing else), whose check() and dial() go
// through the via connection.
import type { Duplex } from 'node:stream';
import { VconsoleError } from '../errors.js';
import type { ConsoleType } from '../console-kinds/index.js';
import type { DialContext } from '../proxy/types.js';
import type { ConsoleTarget, TargetFacts } from '../targets/types.js';
import { CAPABILITY_ANSWERS, CAPABILITY_NAMES, type CapabilityName, type TargetCapabilities } from '../targets/capabilities.js';
import type { ViaConnection } from './connection.js';
import { isFarTarget, type FarTarget } from './protocol.js';
import type { ViaLink } from './ssh-link.js';
import { untilAborted } from '../abort-race.js';
import { FarError } from './wire-error.js';

export class RemoteTarget implements ConsoleTarget {
  readonly input: string;
  name: string;
  readonly provider: string;
  /**
   * The far target's facts, as the far side last described them (its pre-flight settles the
   * type), but for the identity: always the bastion's (see identity below).
   */
  readonly facts: TargetFacts;
  /** Each capability the far target has, asked for on the via connection (a `capability` request). */
  readonly capabilities: TargetCapabilities;
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
    const farIdentity = far.facts.identity;
    const target = () => this;
    this.facts = {
      ...far.facts,
      consoleType: far.facts.consoleType as ConsoleType,
      /**
       * Always the bastion's: a far console with no identity of its own (tcp://127.0.0.1:5900, an
       * OpenStack server) is not the console of the same name here, which another vconsole would
       * otherwise join (src/holding). The name is read when compared, as the data path's default is.
       */
      get identity() {
        const { link: via, provider, name } = target();
        return `via:${via.host}:${farIdentity ?? `${provider}:${name}`}`;
      },
    };
    this.capabilities = Object.fromEntries(
      far.capabilities
        .filter((name): name is CapabilityName => (CAPABILITY_NAMES as string[]).includes(name))
        .map((name) => [name, (signal: AbortSignal, ...args: unknown[]) => this.farCapability(name, signal, args)]),
    );
    this.handle = far.handle;
    this.generation = link.generation;
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
    const opening = this.fromFar(
      connection.open(
        { handle: this.handle, preserveSession: context.preserveSession ?? false, replay: context.replay !== false },
        context.log,
      ),
    );
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

  /** A capability of the far target, asked for by name; its answer is checked as the capability's table says. */
  private async farCapability(name: CapabilityName, signal: AbortSignal, args: unknown[]): Promise<never> {
    const connection = await this.attached();
    const answer = await untilAborted(
      this.fromFar(connection.request('capability', { handle: this.handle, name, args })),
      signal,
      () => signal.reason as Error,
    );
    if (!CAPABILITY_ANSWERS[name](answer))
      throw new VconsoleError(`${this.link.host} answered ${name} for ${this.name} with something else`);
    return answer as never;
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
    const typed = this.facts.consoleTypeTentative ? this.input : `${this.input}#${this.facts.consoleType}`;
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
    this.facts.consoleType = result.facts.consoleType as ConsoleType;
    this.facts.consoleTypeTentative = result.facts.consoleTypeTentative;
  }
}
