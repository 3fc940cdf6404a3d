// The user's own ssh, as every part of vconsole that reaches another host runs it (libvirt+ssh://,
// --via, install --via): `ssh`, or the command line in $VCONSOLE_SSH_COMMAND, which is shell words
// as git reads GIT_SSH_COMMAND (`ssh -F ~/lab/ssh_config`). The arguments after it (options, the
// host, the remote command) are never parsed by a shell here.

/** The variable that replaces `ssh` (as GIT_SSH_COMMAND does for git). */
const SSH_COMMAND_ENV = 'VCONSOLE_SSH_COMMAND';

/** A program and its arguments, for spawn(). */
interface SshCommandLine {
  command: string;
  args: string[];
}

/** `ssh`, or the user's $VCONSOLE_SSH_COMMAND. */
export function sshCommandFrom(env: NodeJS.ProcessEnv = process.env): string {
  return env[SSH_COMMAND_ENV]?.trim() || 'ssh';
}

/**
 * What to spawn for `sshCommand ARGS...`. Plain `ssh` runs as it is (found on PATH: OpenSSH's
 * ssh.exe on Windows 10 and later). Anything else goes through /bin/sh with the arguments after
 * it, as git does; Windows has no /bin/sh, so there its words are split on white space. A plain
 * command (`ssh -F FILE`, a script) is exec'd by that shell, so the process vconsole starts, and
 * ends, is ssh itself: a shell in between would die alone and leave ssh running.
 */
export function sshCommandLine(sshCommand: string, args: readonly string[], platform: NodeJS.Platform = process.platform): SshCommandLine {
  if (sshCommand === 'ssh') return { command: 'ssh', args: [...args] };
  if (platform === 'win32') {
    const [command, ...words] = sshCommand.split(/\s+/);
    return { command, args: [...words, ...args] };
  }
  const exec = PLAIN_COMMAND.test(sshCommand) ? 'exec ' : '';
  return { command: '/bin/sh', args: ['-c', `${exec}${sshCommand} "$@"`, 'ssh', ...args] };
}

/** Words that `exec` can start as they are: no `VAR=value` first, no list or pipeline, no subshell. */
const PLAIN_COMMAND = /^[^\s=;&|()`]+([ \t][^;&|()`\n]*)?$/;
