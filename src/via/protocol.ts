// What both ends of --via agree on before anything else.
import type { ConsoleFacts } from '../proxy/types.js';

/**
 * The via protocol's version: both ends must say the same, or nothing is exchanged. Bump it
 * with any change of frames, requests or their bodies.
 */
export const VIA_PROTOCOL = 3;

/**
 * The far agent's first bytes on stdout, before any frame: what a login shell's rc files print
 * before it is skipped, and a stdout without it was never an agent.
 */
export const AGENT_PREAMBLE = 'vconsole-via-agent\n';

/** At most this much is skipped looking for the preamble. */
export const PREAMBLE_SEARCH_BYTES = 64 * 1024;

/** The far vconsole when VCONSOLE_VIA_COMMAND does not say: on PATH, or where `install --via` puts it. */
const DEFAULT_FAR_COMMAND = `sh -c 'PATH="$HOME/.local/bin:$PATH"; exec vconsole "$@"' vconsole`;

/** The ssh command: ssh, or $VCONSOLE_SSH_COMMAND (shell words, as GIT_SSH_COMMAND). */
export { sshCommandFrom } from '../net/ssh-command.js';

/** The far vconsole: $VCONSOLE_VIA_COMMAND (shell words the bastion's shell reads), else the default. */
export function farCommandFrom(env: NodeJS.ProcessEnv): string {
  return env.VCONSOLE_VIA_COMMAND?.trim() || DEFAULT_FAR_COMMAND;
}

/** One far target as the far agent describes it. */
export interface FarTarget {
  /** The far agent's handle for it, valid on the connection that gave it. */
  handle: number;
  input: string;
  name: string;
  provider: string;
  /**
   * The far target's facts (`ConsoleTarget.facts`), whole, but for its identity: a digest of it
   * when it has one (never the identity itself: it may hold a token).
   */
  facts: ConsoleFacts & { consoleType: string };
  /** The names of its capabilities (`ConsoleTarget.capabilities`): each is asked for with a `capability` request. */
  capabilities: string[];
}

export function isFarTarget(value: unknown): value is FarTarget {
  const v = value as Partial<FarTarget> | null;
  return (
    !!v &&
    typeof v.handle === 'number' &&
    typeof v.input === 'string' &&
    typeof v.name === 'string' &&
    typeof v.provider === 'string' &&
    !!v.facts &&
    typeof v.facts === 'object' &&
    typeof v.facts.consoleType === 'string' &&
    Array.isArray(v.capabilities)
  );
}
