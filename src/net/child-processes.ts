// The programs vconsole starts to reach a console or a host (ssh, virsh, socat through ssh) end
// with it, however it ends: a command's shutdown ends them in its own way, and what is left is
// killed on the way out (process.exit, an uncaught error, the last event gone). A signal that
// comes while no command handles it yet (ssh still connecting, a target still resolving) would
// end vconsole by the default action, with no `exit` event: until a command's handler is in
// place, the signal kills them here first, then ends vconsole as it would have.
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** The signals that end vconsole (src/proxy/shutdown.ts, the console command). */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const live = new Set<ChildProcess>();
let hooked = false;

/** `child` ends with vconsole: killed on its exit, or on a signal no command handles. Returns it. */
export function endsWithVconsole<T extends ChildProcess>(child: T): T {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return child;
  live.add(child);
  child.once('exit', () => live.delete(child));
  hook();
  return child;
}

/** SIGKILL to every child still running, before returning. */
function killChildrenNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
  live.clear();
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killChildrenNow);
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
}

/**
 * The default action, with the children killed first. A command that handles the signal (its
 * shutdown closes everything, then exits) is left to do so: the exit hook takes what remains.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killChildrenNow();
  for (const ending of ENDING_SIGNALS) process.off(ending, onSignal);
  // With no listener left the signal has its default action again: vconsole ends by it, as the
  // parent (a shell, a test) would have seen without this hook.
  process.kill(process.pid, signal);
  // Should the signal be blocked here, the same exit code a shell reports for it.
  process.exit(128 + (constants.signals[signal] ?? 0));
}
