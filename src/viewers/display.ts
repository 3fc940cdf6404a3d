// Whether a viewer's window can show on this machine, asked before any viewer is launched: on
// a jump host reached by ssh without X forwarding every viewer would fail with "cannot open
// display", one row after another. Read from the environment a ViewerEnvironment carries, so
// tests give a fake one; what to tell the user instead (ssh -L lines) is the commands' part.
import os from 'node:os';
import type { HostPlatform } from './types.js';

/** Where the user reached this machine from, for the `ssh -L` line they run on their own. */
export interface SshLogin {
  /** $USER (LOGNAME, USERNAME); undefined when none is set: the line then has no `user@`. */
  user?: string;
  /** The address the ssh session came in on (SSH_CONNECTION's third field), else the host name. */
  host: string;
  /** The port the ssh session came in on (SSH_CONNECTION's fourth field) when it is not ssh's 22. */
  port?: number;
}

/** Whether windows show here: yes, or no with the reason and how the user reached this machine. */
export type DisplayVerdict = { shows: true } | { shows: false; reason: string; login: SshLogin };

/**
 * The decision, per platform:
 * - Linux and the BSDs: a window needs DISPLAY (X11, also ssh -X) or WAYLAND_DISPLAY.
 * - macOS and Windows draw on their own screen without either, so a display is assumed, except
 *   in an ssh session without DISPLAY: a window would open on the machine's own screen (or on
 *   none), not the user's.
 */
export function displayHere(
  system: { platform: HostPlatform; env: Record<string, string | undefined> },
  hostname: () => string = os.hostname,
): DisplayVerdict {
  const { env, platform } = system;
  const set = (name: string) => Boolean(env[name]?.trim());
  const overSsh = set('SSH_CONNECTION') || set('SSH_TTY') || set('SSH_CLIENT');
  if (set('DISPLAY')) return { shows: true };
  if (platform === 'linux') {
    if (set('WAYLAND_DISPLAY')) return { shows: true };
    const reason = overSsh ? 'an ssh session without X forwarding (no DISPLAY)' : 'neither DISPLAY nor WAYLAND_DISPLAY is set';
    return { shows: false, reason, login: sshLogin(env, hostname) };
  }
  if (!overSsh) return { shows: true };
  const screen = platform === 'darwin' ? 'the Mac' : 'the Windows machine';
  return {
    shows: false,
    reason: `an ssh session: a window would open on ${screen}'s own screen, not yours`,
    login: sshLogin(env, hostname),
  };
}

/** The user and the address this ssh session reached, else this machine's name. */
export function sshLogin(env: Record<string, string | undefined>, hostname: () => string = os.hostname): SshLogin {
  const user = [env.USER, env.LOGNAME, env.USERNAME].find((name) => name?.trim())?.trim();
  // SSH_CONNECTION: "client-address client-port server-address server-port".
  const [, , server, serverPort] = env.SSH_CONNECTION?.trim().split(/\s+/) ?? [];
  if (!server) return { user, host: hostname() };
  const port = Number(serverPort);
  return Number.isInteger(port) && port > 0 && port < 65536 && port !== 22 ? { user, host: server, port } : { user, host: server };
}
