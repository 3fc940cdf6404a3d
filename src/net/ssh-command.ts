// The user's own ssh, as every part of vconsole that reaches another host runs it (libvirt+ssh://,
// --via, install --via): `ssh`, or the command line in $VCONSOLE_SSH_COMMAND, which is shell words
// as git reads GIT_SSH_COMMAND (`ssh -F ~/lab/ssh_config`). The arguments after it (options, the
// host, the remote command) are never parsed by a shell here.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { endsWithVconsole } from './child-processes.js';

/** The variable that replaces `ssh` (as GIT_SSH_COMMAND does for git). */
const SSH_COMMAND_ENV = 'VCONSOLE_SSH_COMMAND';

/** A program and its arguments, for spawn(). */
interface SshCommandLine {
  command: string;
  args: string[];
  /** A shell that cannot exec it (a pipeline, a list): run as a process group of its own, ended as one. */
  ownGroup?: boolean;
}

/** `ssh`, or the user's $VCONSOLE_SSH_COMMAND. */
export function sshCommandFrom(env: NodeJS.ProcessEnv = process.env): string {
  return env[SSH_COMMAND_ENV]?.trim() || 'ssh';
}

/**
 * What to spawn for `sshCommand ARGS...`. Plain `ssh` runs as it is (found on PATH: OpenSSH's
 * ssh.exe on Windows 10 and later). Anything else goes through /bin/sh with the arguments after
 * it, as git does; Windows has no /bin/sh, so there its words are split on white space. A plain
 * command (`ssh -F FILE`, a script, `VAR=value ssh`) is exec'd by that shell, so the process
 * vconsole starts, and ends, is ssh itself. What exec cannot start (`cd DIR && ssh`, `ssh | tee`)
 * runs as written, in a process group of its own that is ended as a whole: a kill that reached the
 * shell alone would leave ssh running here and its command on the host.
 */
export function sshCommandLine(sshCommand: string, args: readonly string[], platform: NodeJS.Platform = process.platform): SshCommandLine {
  if (sshCommand === 'ssh') return { command: 'ssh', args: [...args] };
  if (platform === 'win32') {
    const [command, ...words] = sshCommand.split(/\s+/);
    return { command, args: [...words, ...args] };
  }
  const plain = PLAIN_COMMAND.exec(sshCommand);
  if (plain) return { command: '/bin/sh', args: ['-c', `${plain[1] ?? ''}exec ${plain[2]} "$@"`, 'ssh', ...args] };
  return { command: '/bin/sh', args: ['-c', `${sshCommand} "$@"`, 'ssh', ...args], ownGroup: true };
}

/** `VAR=value ` with an unquoted value: every sh passes it on to what it execs (`VAR=value exec ssh`). */
const ASSIGNMENT = String.raw`[A-Za-z_][A-Za-z0-9_]*=[^\s;&|()\x60'"\\]*[ \t]+`;
/** A first word that is no program: `!`, a group, a reserved word. */
const NOT_A_PROGRAM = String.raw`(?:!|\{|if|while|until|for|case)(?:\s|$)`;
/** A program and its words: no list or pipeline, no subshell, one line. */
const SIMPLE_COMMAND = String.raw`[^\s=;&|()\x60!{}]+(?:[ \t][^;&|()\x60\n]*)?`;
/** Words `exec` can start as they are, after any assignments: [assignments, the command]. */
const PLAIN_COMMAND = new RegExp(`^((?:${ASSIGNMENT})*)((?!${NOT_A_PROGRAM})${SIMPLE_COMMAND})$`);

/**
 * Starts the ssh command line; it ends with vconsole. A compound one is the leader of its own
 * process group (`detached`), so that every kill ends the whole of it.
 */
export function spawnSsh(line: SshCommandLine, options: SpawnOptions & { stdio: ['pipe', 'pipe', 'pipe'] }): ChildProcessWithoutNullStreams;
export function spawnSsh(line: SshCommandLine, options: SpawnOptions): ChildProcess;
export function spawnSsh(line: SshCommandLine, options: SpawnOptions): ChildProcess {
  const ownGroup = line.ownGroup === true;
  return endsWithVconsole(spawn(line.command, line.args, { ...options, detached: ownGroup }), { group: ownGroup });
}
