import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * A viewer is often a wrapper (a shell script, `flatpak run`, a launcher) whose children hold
 * the window; signalling only the process vconsole started would leave those running. So a
 * viewer runs as the leader of its own process group on POSIX (spawned `detached`) and is
 * signalled as a group; on Windows `taskkill /T` walks the tree.
 */

/** Spawn viewers as group leaders? Only on POSIX: on Windows `detached` means a new console. */
export function runsInOwnGroup(platform: NodeJS.Platform): boolean {
  return platform !== 'win32';
}

/**
 * Asks the tree of `pid` to end: SIGTERM (or SIGKILL when `force`) to its process group on
 * POSIX. Windows has no SIGTERM a GUI program honours, so there it is `taskkill /T /F` either
 * way (terminates at once), and `onTaskkillFailed` is called when taskkill could not run or
 * exited non-zero (wine's refuses /T; a stripped-down Windows may lack it), so the caller can
 * at least end the process it started. A tree that is gone already is not an error.
 */
export function signalTree(pid: number, platform: NodeJS.Platform, force: boolean, onTaskkillFailed?: () => void): void {
  if (platform === 'win32') {
    const [program, args] = taskkillCommand(pid);
    const taskkill = spawn(program, args, { stdio: 'ignore', windowsHide: true });
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      onTaskkillFailed?.();
    };
    taskkill.once('error', fail);
    taskkill.once('exit', (code) => {
      if (code !== 0) fail();
    });
    return;
  }
  signalGroup(pid, force ? 'SIGKILL' : 'SIGTERM');
}

/**
 * Kills the tree of `pid` before returning, for an exit that cannot wait (a second Ctrl+C,
 * process `exit`): SIGKILL to the group on POSIX, `taskkill /T /F` run to completion on Windows,
 * and when that fails, `pid` itself terminated.
 */
export function killTreeNow(pid: number, platform: NodeJS.Platform): void {
  if (platform === 'win32') {
    const [program, args] = taskkillCommand(pid);
    const taskkill = spawnSync(program, args, { stdio: 'ignore', windowsHide: true, timeout: 2000 });
    if (taskkill.status !== 0) killProcess(pid);
    return;
  }
  signalGroup(pid, 'SIGKILL');
}

function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ESRCH: gone already.
  }
}

/**
 * `taskkill /F /T /PID pid`, with taskkill.exe by its full path under %SystemRoot%: Windows looks
 * for a bare program name in the current directory first, so a `taskkill.exe` in the directory
 * vconsole was started from (a Downloads folder) would be run instead, and the viewers left.
 */
export function taskkillCommand(pid: number, env: Record<string, string | undefined> = process.env): [string, string[]] {
  const program = path.win32.join(env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows', 'System32', 'taskkill.exe');
  return [program, ['/F', '/T', '/PID', String(pid)]];
}

function signalGroup(leader: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader, signal);
  } catch {
    // ESRCH: the whole group is gone already. EPERM cannot happen for our own children.
  }
}
