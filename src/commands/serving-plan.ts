// How the commands that serve consoles on ports (open, proxy) serve them: one plan, read from the
// flags and the config file before anything listens. Whether VNC consoles are shared is decided by
// SHARE_RULES, in order; what wraps each console is decided by wrapForServing, the same for both
// commands. What differs between them is their ServingProfile, and nothing else: a new rule or
// wrapper is a line here, and open and proxy cannot drift apart.
import type { RecordFlags, ShareFlags } from '../flags/command-flags.js';
import type { UpstreamSource } from '../proxy/index.js';
import type { ConsoleTarget } from '../targets/index.js';
import { namingTarget } from './command-io.js';
import { knownUnprotected, protectedKinds } from './exposure.js';
import { joiningFrom, type JoinFlags, type Joining } from './joining.js';
import { recordingFrom, withRecordSharing, type Recording } from './record-flags.js';
import { unsharedBecause, withExposureSharing, withPasswordPerDialSharing, withShareDefault } from './share-flags.js';
import { protectsWithTls, sharingFrom, type Sharing } from './sharing.js';

/** What one command is, to the plan: its defaults, where the two commands differ by design. */
export interface ServingProfile {
  /** The command, for the joining socket's records and messages. */
  readonly command: 'open' | 'proxy';
  /** VNC consoles are shared unless told otherwise (open: its grid, `s` and viewers that outlive a drop need the hub). */
  readonly sharesByDefault: boolean;
  /**
   * A serial console is held as one line from its pre-flight on: `always` (open: its TUI reads
   * every line) or `when-shared` (proxy --share, so `console` elsewhere joins instead of taking it).
   */
  readonly holdsSerialLines: 'always' | 'when-shared';
  /**
   * Beyond loopback, serial lines too are served behind TLS and the password (proxy); open's
   * TUI holds its lines itself, so there they are refused instead.
   */
  readonly serialOverTls: boolean;
  /** A console that cannot be protected on the listener fails the whole command before it listens (proxy), not only its own row (open). */
  readonly refusesUnprotectedBeforeListening: boolean;
  /** Its browser viewer's page (noVNC over loopback, which speaks no VeNCrypt) gives the password without TLS, from this machine only. */
  readonly plainVncAuthFromThisMachine: boolean;
}

export const OPEN_SERVING: ServingProfile = {
  command: 'open',
  sharesByDefault: true,
  holdsSerialLines: 'always',
  serialOverTls: false,
  refusesUnprotectedBeforeListening: false,
  plainVncAuthFromThisMachine: true,
};

export const PROXY_SERVING: ServingProfile = {
  command: 'proxy',
  sharesByDefault: false,
  holdsSerialLines: 'when-shared',
  serialOverTls: true,
  refusesUnprotectedBeforeListening: true,
  plainVncAuthFromThisMachine: false,
};

/** The flags a plan reads. `grid`: open's --grid, which draws its pictures from the hub. */
export type ServingFlags = ShareFlags & RecordFlags & JoinFlags & { grid?: boolean };

/** What the share rules are given besides the flags. */
interface ServingContext {
  readonly profile: ServingProfile;
  readonly listen: string;
  /** The config file's defaults.share. */
  readonly configShare: boolean | undefined;
  /** The consoles named or selected at the start, as far as they are known. */
  readonly targets: readonly ConsoleTarget[];
}

/** One step of deciding `share`: it sees the flags as the steps before it left them. A step may refuse (a usage error). */
interface ShareRule {
  /** The rule in words, as docs/COMMANDS.md says it. */
  readonly says: string;
  apply<F extends ServingFlags>(flags: F, context: ServingContext): F;
}

/**
 * Whether VNC consoles are shared (served through the RFB hub), in the order the rules are read.
 * What needs the hub (the grid, a listener beyond loopback, a recording, a one-time ticket) comes
 * before the defaults: it shares over the config file's defaults.share: false, and only an explicit
 * --no-share stands against it (refused, but for the grid, whose tiles then say why they are empty).
 */
const SHARE_RULES: readonly ShareRule[] = [
  {
    says: "--grid shares (its pictures are the hub's), unless --no-share",
    apply: (flags) => (flags.grid && flags.share === undefined ? { ...flags, share: true } : flags),
  },
  {
    says: 'beyond loopback the hub serves VNC (TLS and a password); --no-share there is refused unless --insecure-expose-unauthenticated',
    apply: (flags, { listen }) => withExposureSharing(flags, listen),
  },
  {
    says: '--record shares (a VNC console is recorded through the hub); with --no-share it is refused',
    apply: (flags) => withRecordSharing(flags),
  },
  {
    says: 'a VNC console whose password is a one-time ticket (Proxmox VE) shares; with --no-share it is refused',
    apply: (flags, { targets }) => withPasswordPerDialSharing(flags, targets),
  },
  {
    says: "else --share or --no-share; else the config file's defaults.share; else the command's default (open: shared, proxy: not)",
    apply: (flags, { configShare, profile }) => withShareDefault(flags, configShare, profile.sharesByDefault || undefined),
  },
];

/** The flags with `share` settled by every rule, in order. */
export function settleSharing<F extends ServingFlags>(flags: F, context: ServingContext): F {
  return SHARE_RULES.reduce((settled, rule) => rule.apply(settled, context), flags);
}

/** How one command serves its consoles, settled before anything listens. */
export interface ServingPlan {
  readonly listen: string;
  readonly sharing: Sharing;
  readonly recording: Recording;
  readonly joining: Joining;
  /** When VNC consoles are not shared: what would share them (`drop --no-share`), for open's `s` and grid. */
  readonly shareHint?: string;
  /** A console as the command serves it: every wrapper it gets, in their one order. */
  wrap(target: ConsoleTarget): UpstreamSource;
}

/**
 * Reads the flags into the plan: refuses (a usage error) what cannot be served before anything
 * listens, reads the password files, prepares the recorder and the joining socket.
 */
export async function servingPlan(
  flags: ServingFlags,
  context: ServingContext,
  notice: (text: string) => void,
  sharingNotes: { notesUnshared?: boolean } = {},
): Promise<ServingPlan> {
  const { profile, listen, targets } = context;
  const settled = settleSharing(flags, context);
  if (profile.refusesUnprotectedBeforeListening) {
    const unprotected = knownUnprotected(
      targets,
      listen,
      settled,
      protectedKinds(protectsWithTls(settled, listen) && profile.serialOverTls),
    );
    if (unprotected) throw namingTarget(unprotected.target.name, unprotected.error);
  }
  const sharing = await sharingFrom(settled, listen, {
    serialOverTls: profile.serialOverTls,
    notesUnshared: sharingNotes.notesUnshared,
    plainVncAuthFromThisMachine: profile.plainVncAuthFromThisMachine,
    holdsSerialLines: profile.holdsSerialLines,
  });
  const recording = await recordingFrom(flags);
  const joining = joiningFrom(flags, profile.command, notice, { viewOnly: flags.viewOnly === true });
  return {
    listen,
    sharing,
    recording,
    joining,
    shareHint: sharing.shares ? undefined : unsharedBecause(flags, context.configShare),
    wrap: (target) => wrapForServing(target, { sharing, recording, joining }),
  };
}

/**
 * The one order of wrappers, innermost first: the target; joining (another vconsole of the user
 * may hold it); the recorder (what passes, under any sharing); the sharing (the exposure guard,
 * the hub, the held serial line, the TLS gate of serial lines). The top serves the vconsoles
 * that join.
 */
function wrapForServing(
  target: ConsoleTarget,
  { sharing, recording, joining }: Pick<ServingPlan, 'sharing' | 'recording' | 'joining'>,
): UpstreamSource {
  return joining.wrap(target, (joined) => sharing.wrap(recording.wrap(joined)));
}
