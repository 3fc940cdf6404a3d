import { consoleKind, consoleLabel, consoleTypesWhere } from '../console-kinds/index.js';
import type { ConsoleSession, SessionSnapshot, UpstreamSource } from '../proxy/index.js';
import { SharedSerialSource } from '../serial/index.js';
import { AuthBackoff, type RfbHub } from '../rfb/index.js';
import { ExposureGuard, INSECURE_EXPOSE_FLAG, protectedKinds, refusesUnprotected } from './exposure.js';
import { SerialTlsGate } from './exposed-serial.js';
import { exposureWarning, isLoopback } from './flags.js';
import { VNC_PASSWORD_CHARS, checkClientPassword, generateVncPassword } from './password-file.js';
import { GUESS_REFILL_MS } from '../limits.js';
import { readSecretLine } from '../files/secret-line.js';
import { INSECURE_VNC_AUTH_FLAG, type ShareFlags, type TlsFlags } from './share-flags.js';
import type { TlsIdentity } from '../net/tls-identity.js';

/** How long a held serial line keeps redialling a console that dropped (VM reboot, migration). */
const SERIAL_RECONNECT_MS = 5 * 60_000;

/**
 * Wraps a target so that, should it be a serial console, one line is held from the pre-flight on
 * and shared by every client (open's TUI and ports; proxy's ports with --share).
 */
export function shareSerial(target: UpstreamSource, viewOnly = false): SharedSerialSource {
  return new SharedSerialSource(target, { waitMs: SERIAL_RECONNECT_MS, viewOnly });
}

/** How the consoles of one command are shared, settled from its flags before anything listens. */
export interface Sharing {
  /**
   * Wraps a VNC console in a hub when sharing (and, with `holdsSerialLines`, a serial console in
   * one held line); other consoles and no sharing pass through. On a listener beyond loopback, a
   * console no password protects is refused (ExposureGuard).
   */
  wrap(target: UpstreamSource): UpstreamSource;
  /** Sends the hub's news (and a line held here: its own) of `session`'s console to the session's log. */
  follow(session: ConsoleSession): void;
  /** The hub that shares `session`'s console, if it is shared (under a serial wrapper or not). */
  hubOf(session: ConsoleSession): RfbHub | undefined;
  /** The password viewers must give; told to the user once, never logged. */
  clientPassword?: string;
  /** True when the password was made up here and must be shown once. */
  generated: boolean;
  /** The warning for a password of --password-file too short for a listener beyond loopback. */
  shortPassword?: string;
  /** True when serial and SPICE consoles are served beyond loopback without a password (opted in). */
  insecureExposure: boolean;
  /** True when VNC consoles get the hub. */
  shares: boolean;
  /** The certificate an exposed listener's viewers check (VeNCrypt): only beyond loopback, with a password. */
  tls?: TlsIdentity;
  /** True when plain VNC authentication is offered beside VeNCrypt (INSECURE_VNC_AUTH_FLAG). */
  plainVncAuth: boolean;
  /** True when serial lines too are served behind TLS and the password (SerialTlsGate: proxy). */
  serialOverTls: boolean;
}

/**
 * Reads the sharing flags (password files strictly: a usage error before anything starts).
 * A listener beyond loopback in hub mode always asks viewers for a password. The RFB hub's
 * code loads only when something is shared: a plain proxy starts without it.
 */
export async function sharingFrom(
  flags: ShareFlags,
  listen: string,
  options: {
    serialOverTls?: boolean;
    notesUnshared?: boolean;
    plainVncAuthFromThisMachine?: boolean;
    holdsSerialLines?: 'always' | 'when-shared';
  } = {},
): Promise<Sharing> {
  const share = Boolean(flags.share || flags.viewOnly || flags.vncPasswordFile || flags.passwordFile);
  const { upstreamPassword, clientPassword, shortPassword, generated } = passwordsFrom(flags, listen, share);
  const Hub = share ? (await import('../rfb/hub/hub.js')).RfbHub : undefined;
  const tlsIdentity = clientPassword !== undefined && !isLoopback(listen) ? await exposedIdentity(flags, listen) : undefined;
  const plainVncAuth = tlsIdentity !== undefined && Boolean(flags.insecureVncAuth);
  const clientTls = tlsIdentity && { context: tlsIdentity.context, alsoPlainVncAuth: plainVncAuth };
  // One back-off for every console of the command: guessing across its ports gains nothing.
  const authBackoff = new AuthBackoff();
  const guarded = refusesUnprotected(listen, flags);
  // `open`'s TUI holds its serial lines itself: they are not put behind a TLS gate, so refused there.
  const serialGate = tlsIdentity !== undefined && options.serialOverTls !== false;
  const protects = protectedKinds(serialGate);
  const guard = (target: UpstreamSource) => (guarded ? new ExposureGuard(target, listen, protects) : target);
  // Outermost: a serial client speaks TLS and gives the password before its console is dialled.
  const gate = (source: UpstreamSource) =>
    serialGate && tlsIdentity && clientPassword !== undefined
      ? new SerialTlsGate(source, { context: tlsIdentity.context, password: clientPassword, authBackoff })
      : source;
  // A serial console is held as one line (open: always, its TUI reads it; proxy: with --share), under the TLS gate.
  const holdsLines = options.holdsSerialLines === 'always' || (share && options.holdsSerialLines === 'when-shared');
  const holdLine = (source: UpstreamSource) => (holdsLines ? shareSerial(source, flags.viewOnly === true) : source);
  const hubOf = (session: ConsoleSession): RfbHub | undefined => {
    const outer = session.source instanceof SerialTlsGate ? session.source.inner : session.source;
    const source = lineOf(session)?.inner ?? outer;
    return Hub && source instanceof Hub ? source : undefined;
  };
  return {
    clientPassword,
    generated,
    shortPassword,
    tls: tlsIdentity,
    plainVncAuth,
    serialOverTls: serialGate,
    shares: share,
    insecureExposure: !isLoopback(listen) && Boolean(flags.insecureExposeUnauthenticated),
    wrap: (target) =>
      gate(
        holdLine(
          Hub
            ? new Hub(guard(target), {
                upstreamPassword,
                clientPassword,
                clientTls,
                // open's browser viewer page bridges to its port over loopback with noVNC, which speaks no X509 VeNCrypt.
                plainVncAuthFromThisMachine: options.plainVncAuthFromThisMachine,
                viewOnly: flags.viewOnly,
                authBackoff,
              })
            : guard(target),
        ),
      ),
    follow: (session) => {
      // The held line's news (reconnecting, a client dropped, another client took it) to the session's log.
      lineOf(session)?.on('log', (level, message) => session.log(level, message));
      hubOf(session)?.on('log', (level, message) => session.log(level, message));
      // Shared only because the command shares by default (open), a SPICE console unshared is no news.
      if (hubOf(session) && options.notesUnshared !== false) noteUnshared(session);
    },
    hubOf,
  };
}

/** The clients' password --password-file names (read strictly: a usage error before anything starts), if given. */
export function passwordFileFlag(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  return checkClientPassword(readSecretLine(file, '--password-file', { what: 'password' }), '--password-file', file);
}

/**
 * The upstream's password (--vnc-password-file) and the clients' (--password-file, or made up
 * here for a shared listener beyond loopback), with the warning for a short one beyond loopback.
 */
function passwordsFrom(
  flags: ShareFlags,
  listen: string,
  share: boolean,
): Pick<Sharing, 'clientPassword' | 'generated' | 'shortPassword'> & { upstreamPassword?: string } {
  const upstreamPassword =
    flags.vncPasswordFile === undefined ? undefined : readSecretLine(flags.vncPasswordFile, '--vnc-password-file', { what: 'password' });
  const chosen = passwordFileFlag(flags.passwordFile);
  const shortPassword =
    chosen !== undefined && !isLoopback(listen) && chosen.length < VNC_PASSWORD_CHARS
      ? shortPasswordWarning(chosen.length, listen)
      : undefined;
  const generated = share && chosen === undefined && !isLoopback(listen);
  return { upstreamPassword, clientPassword: generated ? generateVncPassword() : chosen, shortPassword, generated };
}

/** The serial line held under a session's TLS gate, if any. */
function lineOf(session: ConsoleSession): SharedSerialSource | undefined {
  const outer = session.source instanceof SerialTlsGate ? session.source.inner : session.source;
  return outer instanceof SharedSerialSource ? outer : undefined;
}

/**
 * Whether a command's exposed listener gets a password and TLS, from its settled flags (before
 * sharingFrom, so that a console it cannot protect is refused before anything is made).
 */
export function protectsWithTls(flags: ShareFlags, listen: string): boolean {
  return !isLoopback(listen) && Boolean(flags.share || flags.viewOnly || flags.vncPasswordFile || flags.passwordFile);
}

/**
 * The certificate of a listener beyond loopback: --tls-cert/--tls-key, else the one kept in the
 * config directory (made now when there is none). The code that makes one loads only here.
 */
export async function exposedIdentity(flags: TlsFlags, listen: string): Promise<TlsIdentity> {
  const { certificateNames, identityDirectory, listenerIdentity } = await import('../net/tls-identity.js');
  const names = listen === '0.0.0.0' || listen === '::' ? [] : [listen];
  const identity = await listenerIdentity({ dir: identityDirectory(), certFile: flags.tlsCert, keyFile: flags.tlsKey, names });
  // One kept from an earlier --listen (or the user's own) may not name this address: viewers that check the host refuse it.
  if (names.length === 0 || certificateNames(identity.cert, listen)) return identity;
  const fix = flags.tlsCert === undefined ? `delete ${identityDirectory()} for a new one that does` : 'dial a name it holds';
  return {
    ...identity,
    unnamedListen: `it does not name ${listen}, so viewers that check the host (remote-viewer) refuse it there: ${fix}`,
  };
}

/**
 * The line that names the certificate viewers must trust, with its SHA-256 fingerprint as
 * `openssl x509 -noout -fingerprint -sha256 -in FILE` prints it, so users can compare or pin it.
 */
export function certificateNotice(sharing: Pick<Sharing, 'tls'>): string | undefined {
  const identity = sharing.tls;
  if (!identity) return undefined;
  const made = identity.generated ? 'made now, ' : '';
  const line = `TLS certificate of this listener (${made}give it to viewers as their CA file): ${identity.certFile} sha256 Fingerprint=${identity.fingerprint}`;
  return identity.unnamedListen === undefined ? line : `${line}; ${identity.unnamedListen}`;
}

/** What the hub shares, for the line about a console it does not. */
const HUB_SHARES = consoleTypesWhere((kind) => kind.sharing === 'rfb-hub')
  .map(consoleLabel)
  .join(', ');

/**
 * The hub shares RFB only: a console of a kind nothing shares (SPICE, known once the
 * pre-flight ran) passes through it unshared, which is said once, when the session listens.
 */
function noteUnshared(session: ConsoleSession): void {
  const onChange = (snapshot: SessionSnapshot) => {
    if (snapshot.state !== 'listening') return;
    session.off('change', onChange);
    const kind = consoleKind(snapshot.consoleType);
    if (kind?.sharing === 'none')
      session.log('warn', `not shared: --share shares ${HUB_SHARES} consoles; each ${kind.label} viewer opens its own console session`);
  };
  session.on('change', onChange);
}

/**
 * A chosen password shorter than VNC authentication carries, beyond loopback. The listener checks
 * GUESS_BURST then one guess each GUESS_REFILL_MS from all addresses together: 8 random
 * characters of 94 hold for millions of years at that rate; each character fewer divides it by 94,
 * and a password a person chose is guessed among the first, whatever its length.
 */
function shortPasswordWarning(length: number, listen: string): string {
  const perSecond = Math.round(1000 / GUESS_REFILL_MS);
  return (
    `warning: the viewer password of --password-file has ${length} characters on --listen ${listen}: ` +
    `anyone who reaches the port may guess it (${perSecond} guesses a second at most, from all addresses together); ` +
    `use ${VNC_PASSWORD_CHARS} random characters (the most VNC authentication carries), or drop --password-file for a made one`
  );
}

/** The one line that tells the user a generated viewer password, or warns of a short chosen one (stderr, never a log). */
export function passwordNotice(sharing: Sharing): string | undefined {
  if (sharing.shortPassword !== undefined) return sharing.shortPassword;
  if (!sharing.generated || !sharing.clientPassword) return undefined;
  return `VNC password for viewers of this listener: ${sharing.clientPassword} (shown once; give your own with --password-file)`;
}

/**
 * What is said when the consoles are reachable from the network: with a password, VNC is not
 * open to all; serial and SPICE consoles are either refused or, opted in, said to be open.
 */
export function exposureNotice(listen: string, sharing: Sharing): string | undefined {
  if (isLoopback(listen)) return undefined;
  const others = sharing.insecureExposure ? `; serial and SPICE consoles on it have no password at all (${INSECURE_EXPOSE_FLAG})` : '';
  if (!sharing.clientPassword) return `${exposureWarning(listen)}${others}`;
  const serial = sharing.serialOverTls ? '; serial: a password line inside TLS' : '';
  const tls = sharing.tls
    ? `viewers must speak TLS with the certificate below and give the password (VNC: VeNCrypt X509Vnc${serial})`
    : 'VNC viewers must give the VNC password';
  const plain = sharing.plainVncAuth
    ? `; ${INSECURE_VNC_AUTH_FLAG}: viewers may also give it without TLS, and then the password's challenge and the screen cross the network in clear`
    : '';
  return `warning: listening on ${listen}: the VM console is reachable from the network; ${tls}${plain}${others}`;
}
