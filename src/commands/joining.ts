import { describeError } from '../errors.js';
import { ensureRuntimeDir, heldConsoles, JoinSource, RuntimeDirError, type JoinOptions } from '../holding/index.js';
import type { UpstreamSource } from '../proxy/index.js';

import type { JoinFlags } from '../flags/command-flags.js';

export type { JoinFlags } from '../flags/command-flags.js';

/**
 * One VM session per machine: how a command's consoles are joined to, or held for, the other
 * vconsoles of this user (src/holding). Settled once per command, before anything dials.
 */
export interface Joining {
  /**
   * `target` with the join decorator right above it and the chain `share` builds on top; when
   * that chain shares the console (a hub, a shared serial line), its top serves the other
   * vconsoles that join. Without `share` the command only joins (screenshot, console).
   */
  wrap(target: UpstreamSource, share?: (source: UpstreamSource) => UpstreamSource): UpstreamSource;
}

const NOT_JOINING: Joining = { wrap: (target, share) => (share ? share(target) : target) };

/**
 * The command's joining: none with --no-join or on Windows (no unix sockets there yet); none,
 * said once through `notice`, when the runtime directory is refused (someone else's, or open
 * to others): the command then dials its consoles itself, as before.
 */
export function joiningFrom(flags: JoinFlags, command: string, notice: (text: string) => void, options: JoinOptions = {}): Joining {
  if (flags.join === false || process.platform === 'win32') return NOT_JOINING;
  let dir: string;
  try {
    const runtime = ensureRuntimeDir();
    dir = runtime.dir;
    if (runtime.notice) notice(`warning: ${runtime.notice}`);
  } catch (err) {
    notice(
      `warning: ${describeError(err instanceof RuntimeDirError ? err : new RuntimeDirError('the runtime directory', describeError(err), 'pass --no-join'))}`,
    );
    return NOT_JOINING;
  }
  // What killed vconsoles left (their records and sockets) goes before anything is held anew.
  heldConsoles(dir);
  return {
    wrap(target, share) {
      const join = new JoinSource(target, dir, command, options);
      const top = share ? share(join) : join;
      join.servesJoinersThrough(top);
      return top;
    },
  };
}
