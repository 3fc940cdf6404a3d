import type { Duplex } from 'node:stream';
import { consoleLabel, consoleTypesWhere } from '../console-kinds/index.js';
import { UsageError } from '../errors.js';
import { INSECURE_EXPOSE_FLAG, type ShareFlags } from '../flags/command-flags.js';
import { type DialContext, type UpstreamSource, WrappedSource } from '../proxy/index.js';
import { isLoopback } from './flags.js';

/**
 * What a listener beyond loopback may serve. The viewer password of --share is VNC
 * authentication, which only the RFB hub speaks: a serial line is raw bytes (a root shell for
 * whoever connects) and SPICE passes through untouched, so neither can be protected here. On
 * such a listener they are refused, before anything listens, unless the user opts in with
 * INSECURE_EXPOSE_FLAG; the safe way is loopback plus an SSH tunnel. `proxy` beyond loopback
 * (shared there, withExposureSharing) puts TLS and its password in front of serial lines too
 * (SerialTlsGate); SPICE stays refused, and so do `open`'s serial lines (its TUI holds them).
 */
export { INSECURE_EXPOSE_FLAG };

/** Serve serial and SPICE consoles on a non-loopback --listen without authentication (declared in src/flags/command-flags.ts). */
type ExposureFlags = Pick<ShareFlags, 'insecureExposeUnauthenticated'>;

/** Console types vconsole can put a password in front of: those the RFB hub shares. */
const PROTECTABLE: ReadonlySet<string> = new Set(consoleTypesWhere((kind) => kind.sharing === 'rfb-hub'));
const SERIAL: ReadonlySet<string> = new Set(consoleTypesWhere((kind) => kind.sharing === 'serial-line'));
/** ...and, on a listener with TLS and a password, serial lines (SerialTlsGate). */
const PROTECTABLE_WITH_TLS: ReadonlySet<string> = new Set([...PROTECTABLE, ...SERIAL]);

/** The kinds a listener protects: with `serialOverTls` (proxy --share beyond loopback), serial lines too. */
export function protectedKinds(serialOverTls: boolean): ReadonlySet<string> {
  return serialOverTls ? PROTECTABLE_WITH_TLS : PROTECTABLE;
}

/** The usage error for a console that cannot be protected on `listen`. */
function unprotectedConsoleError(consoleType: string, listen: string, protects: ReadonlySet<string> = PROTECTABLE): UsageError {
  const covered = [...protects].map(consoleLabel).join(', ');
  return new UsageError(
    `a ${consoleLabel(consoleType)} console on --listen ${listen} would be open to anyone who reaches the port: vconsole's viewer password covers ${covered} only`,
    `listen on 127.0.0.1 and reach it with ssh -L PORT:127.0.0.1:PORT${
      SERIAL.has(consoleType) ? ', serve it with vconsole proxy (TLS and a password)' : ''
    }, or pass ${INSECURE_EXPOSE_FLAG} to serve it anyway`,
  );
}

/**
 * The first of `targets` whose kind is known already and that `listen` would expose unprotected,
 * so a command can refuse before any port listens or is printed (ExposureGuard catches the
 * kinds a pre-flight settles later).
 */
export function knownUnprotected<T extends { facts: { consoleType?: string } }>(
  targets: readonly T[],
  listen: string,
  flags: ExposureFlags,
  protects: ReadonlySet<string> = PROTECTABLE,
): { target: T; error: UsageError } | undefined {
  if (!refusesUnprotected(listen, flags)) return undefined;
  const target = targets.find((t) => t.facts.consoleType !== undefined && !protects.has(t.facts.consoleType));
  const type = target?.facts.consoleType;
  return target === undefined || type === undefined ? undefined : { target, error: unprotectedConsoleError(type, listen, protects) };
}

/** True when `listen` is beyond loopback and serial/SPICE consoles are refused there. */
export function refusesUnprotected(listen: string, flags: ExposureFlags): boolean {
  return !isLoopback(listen) && !flags.insecureExposeUnauthenticated;
}

/**
 * A console guarded for an exposed listener: its pre-flight fails with the usage error when
 * the console turns out (or was named) to be of a kind no password protects. Clients that
 * connected to an early listener meanwhile wait for the pre-flight, so none gets through.
 */
export class ExposureGuard extends WrappedSource<Record<never, never>> {
  constructor(
    inner: UpstreamSource,
    private readonly listen: string,
    private readonly protects: ReadonlySet<string> = PROTECTABLE,
  ) {
    super(inner);
  }

  async check(signal: AbortSignal): Promise<void> {
    this.refuseUnprotected();
    await this.inner.check?.(signal);
    this.refuseUnprotected();
  }

  dial(context: DialContext): Promise<Duplex> {
    this.refuseUnprotected();
    return this.inner.dial(context);
  }

  async release(): Promise<void> {
    await this.inner.release?.();
  }

  private refuseUnprotected(): void {
    const type = this.inner.facts.consoleType;
    if (type !== undefined && !this.protects.has(type)) throw unprotectedConsoleError(type, this.listen, this.protects);
  }
}
