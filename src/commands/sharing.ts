import { consoleKind, consoleLabel, consoleTypesWhere } from '../console-kinds/index.js';
import type { ConsoleSession } from '../proxy/console-session.js';
import { SharedSerialSource } from '../serial/shared-serial.js';
import type { SessionSnapshot, UpstreamSource } from '../proxy/types.js';
import { AuthBackoff } from '../rfb/server/auth-backoff.js';
import type { RfbHub } from '../rfb/hub/hub.js';
import { ExposureGuard, INSECURE_EXPOSE_FLAG, refusesUnprotected } from './exposure.js';
import { exposureWarning, isLoopback } from './flags.js';
import { checkClientPassword, generateVncPassword, readPasswordFile } from './password-file.js';
import type { ShareFlags } from './share-flags.js';

/** How the consoles of one command are shared, settled from its flags before anything listens. */
export interface Sharing {
  /**
   * Wraps a VNC console in a hub when sharing; other consoles and no sharing pass through.
   * On a listener beyond loopback, a console no password protects is refused (ExposureGuard).
   */
  wrap(target: UpstreamSource): UpstreamSource;
  /** Sends the hub's news of `session`'s console to the session's log. */
  follow(session: ConsoleSession): void;
  /** The hub that shares `session`'s console, if it is shared (under a serial wrapper or not). */
  hubOf(session: ConsoleSession): RfbHub | undefined;
  /** The password viewers must give; told to the user once, never logged. */
  clientPassword?: string;
  /** True when the password was made up here and must be shown once. */
  generated: boolean;
  /** True when serial and SPICE consoles are served beyond loopback without a password (opted in). */
  insecureExposure: boolean;
  /** True when VNC consoles get the hub. */
  shares: boolean;
}

/**
 * Reads the sharing flags (password files strictly: a usage error before anything starts).
 * A listener beyond loopback in hub mode always asks viewers for a password. The RFB hub's
 * code loads only when something is shared: a plain proxy starts without it.
 */
export async function sharingFrom(
  flags: ShareFlags,
  listen: string,
  options: { clientPasswords: boolean; notesUnshared?: boolean } = { clientPasswords: true },
): Promise<Sharing> {
  const share = Boolean(flags.share || flags.viewOnly || flags.vncPasswordFile || flags.passwordFile);
  const upstreamPassword = flags.vncPasswordFile === undefined ? undefined : readPasswordFile(flags.vncPasswordFile, '--vnc-password-file');
  let clientPassword =
    flags.passwordFile === undefined
      ? undefined
      : checkClientPassword(readPasswordFile(flags.passwordFile, '--password-file'), '--password-file', flags.passwordFile);
  // `open` launches its own viewers, which could not know a made-up password.
  const generated = options.clientPasswords && share && clientPassword === undefined && !isLoopback(listen);
  if (generated) clientPassword = generateVncPassword();
  const Hub = share ? (await import('../rfb/hub/hub.js')).RfbHub : undefined;
  // One back-off for every console of the command: guessing across its ports gains nothing.
  const authBackoff = new AuthBackoff();
  const guarded = refusesUnprotected(listen, flags);
  const guard = (target: UpstreamSource) => (guarded ? new ExposureGuard(target, listen) : target);
  const hubOf = (session: ConsoleSession): RfbHub | undefined => {
    const source = session.source instanceof SharedSerialSource ? session.source.inner : session.source;
    return Hub && source instanceof Hub ? source : undefined;
  };
  return {
    clientPassword,
    generated,
    shares: share,
    insecureExposure: !isLoopback(listen) && Boolean(flags.insecureExposeUnauthenticated),
    wrap: (target) =>
      Hub ? new Hub(guard(target), { upstreamPassword, clientPassword, viewOnly: flags.viewOnly, authBackoff }) : guard(target),
    follow: (session) => {
      hubOf(session)?.on('log', (level, message) => session.log(level, message));
      // Shared only because the command shares by default (open), a SPICE console unshared is no news.
      if (hubOf(session) && options.notesUnshared !== false) noteUnshared(session);
    },
    hubOf,
  };
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

/** The one line that tells the user a generated viewer password (stderr, never a log). */
export function passwordNotice(sharing: Sharing): string | undefined {
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
  return `warning: listening on ${listen}: the VM console is reachable from the network; VNC viewers must give the VNC password${others}`;
}

/**
 * `open` on a listener beyond loopback: its VNC consoles have no viewer password (the viewers it
 * launches could not be told one), serial and SPICE are refused unless opted in. Says so, and
 * what protects them: proxy asks viewers for a password, ssh -L needs no exposed port at all.
 */
export function openExposureNotice(listen: string): string | undefined {
  const warning = exposureWarning(listen);
  if (!warning) return undefined;
  return `${warning}; for a VNC password serve it with vconsole proxy --listen ${listen} instead, or listen on 127.0.0.1 and reach it with ssh -L`;
}
