// What the commands that serve consoles (proxy, open) make of `--share` and what comes with it
// (declared in src/flags/command-flags.ts). `open` shares by default (the grid's pictures, `s` on
// a watched console and viewers that survive a console's drop all need the hub); `proxy` stays a
// byte relay unless asked. Cheap to import: the hub itself lives in sharing.ts.
import type { ShareFlags } from '../flags/command-flags.js';
import { INSECURE_EXPOSE_FLAG } from './exposure.js';
import { isLoopback } from './flags.js';
import { UsageError } from '../errors.js';

export { INSECURE_VNC_AUTH_FLAG } from '../flags/command-flags.js';
export type { ShareFlags } from '../flags/command-flags.js';

/** The flags of a listener that speaks TLS beyond loopback (proxy, open, replay). */
export type TlsFlags = Pick<ShareFlags, 'tlsCert' | 'tlsKey' | 'insecureVncAuth'>;

/**
 * The flags with --share settled: the flag when given, else the config file's defaults.share,
 * else the command's own default (`open`: shared; `proxy`: not).
 */
export function withShareDefault<F extends ShareFlags>(flags: F, configShare: boolean | undefined, commandDefault?: true): F {
  // Unsettled stays undefined for proxy: --record may still share (false would refuse it).
  return flags.share === undefined ? { ...flags, share: configShare ?? commandDefault } : flags;
}

/**
 * Beyond loopback every VNC console is served by vconsole's own RFB server (the hub), which
 * speaks VeNCrypt with the viewer password: unshared, it would be the console's own server
 * relayed byte for byte (QEMU's, KubeVirt's: no TLS, no password but its own). So a listener
 * beyond loopback implies --share, over the config's defaults.share: false too; --no-share
 * there is refused unless INSECURE_EXPOSE_FLAG asks for the raw relay by name (that flag alone
 * serves serial and SPICE consoles and leaves VNC shared). `flags` as
 * given, before withShareDefault.
 */
export function withExposureSharing<F extends ShareFlags>(flags: F, listen: string): F {
  if (isLoopback(listen)) return flags;
  if (flags.share === false) {
    if (flags.insecureExposeUnauthenticated) return flags;
    throw new UsageError(
      `--no-share on --listen ${listen} would relay VNC consoles unencrypted, with no password but the console's own: beyond loopback vconsole serves VNC itself, with TLS and a password`,
      `drop --no-share, listen on 127.0.0.1 and reach it with ssh -L PORT:127.0.0.1:PORT, or pass ${INSECURE_EXPOSE_FLAG} to relay it anyway`,
    );
  }
  return { ...flags, share: true };
}

/**
 * What turned sharing off, as the change that would turn it on, for the notices of `s` and the
 * grid; undefined when the consoles are shared. `flags` as given, before withShareDefault.
 */
export function unsharedBecause(flags: Pick<ShareFlags, 'share'>, configShare: boolean | undefined): string | undefined {
  if (flags.share === false) return 'drop --no-share';
  if (flags.share === undefined && configShare === false) return 'pass --share, or drop defaults.share: false from the config file';
  return undefined;
}

/** What withPasswordPerDialSharing reads of a target. */
interface PerDialPasswordTarget {
  readonly name: string;
  readonly facts: { readonly consoleType?: string; readonly consolePasswordPerDial?: boolean };
}

/**
 * A VNC console whose password is a one-time ticket (`consolePasswordPerDial`: Proxmox VE) is
 * served through the hub, whose RFB client answers it: any such target turns sharing on, and
 * sharing turned off is refused naming it, since no viewer could be told the ticket.
 */
export function withPasswordPerDialSharing<F extends ShareFlags>(flags: F, targets: readonly PerDialPasswordTarget[]): F {
  const ticketed = targets.find((t) => t.facts.consolePasswordPerDial && t.facts.consoleType === 'vnc');
  if (!ticketed) return flags;
  if (flags.share === false)
    throw new UsageError(
      `${ticketed.name}: its VNC server asks for a one-time ticket only vconsole's own client can answer, so its screen is always shared`,
      'drop --no-share, or open its serial console (#serial)',
    );
  return { ...flags, share: true };
}
