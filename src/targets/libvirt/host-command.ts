// Running virsh where the domain lives: here, or on the host through the user's own ssh (its
// config, keys and agent), the way libvirt's qemu+ssh:// and virt-viewer run ssh. Every command
// has a deadline and a bound on what it may print; nothing secret is ever in an argv.
import { spawn, type ChildProcess } from 'node:child_process';
import { VconsoleError, describeError } from '../../errors.js';
import { endsWithVconsole } from '../../net/child-processes.js';
import { sshCommandFrom, sshCommandLine } from '../../net/ssh-command.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { LibvirtConnection, SshHost } from './connection.js';
import { describeConnection, sshAuthority } from './connection.js';

/** A virsh answer longer than this is no domain XML or listing (a hostile or broken host). */
const VIRSH_OUTPUT_LIMIT_BYTES = 4 * 1024 * 1024;
/** How long one virsh command may take, ssh's connection included. */
const VIRSH_TIMEOUT_MS = 30_000;
/** What is kept of stderr to explain a failure. */
const STDERR_LIMIT_BYTES = 16 * 1024;

/** A program and its arguments. */
export interface Invocation {
  command: string;
  args: string[];
}

/** One word for the remote shell, whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The user's ssh, in batch mode, with `options` (before the host, e.g. `-W h:p`), to `ssh`, running
 * `remoteCommand` there when given. VCONSOLE_SSH_COMMAND is run by the shell with the arguments
 * after it, as git runs GIT_SSH_COMMAND.
 */
export function sshInvocation(
  ssh: SshHost,
  options: readonly string[],
  remoteCommand: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Invocation {
  // No prompts: a password or host-key question would land in the TUI's terminal, or wait unseen.
  const args = [
    '-o',
    'BatchMode=yes',
    ...(ssh.port ? ['-p', String(ssh.port)] : []),
    ...(ssh.user ? ['-l', ssh.user] : []),
    ...options,
    '--',
    ssh.host,
    ...(remoteCommand === undefined ? [] : [remoteCommand]),
  ];
  return sshCommandLine(sshCommandFrom(env), args, platform);
}

/**
 * What runs a command on the host and ends it when ssh's channel closes. sshd signals nothing to
 * a command without a terminal when the connection goes (vconsole ended, ssh killed): a command
 * that neither reads its stdin nor writes (`virsh event --loop` between events) would run there
 * for ever. So it runs beside a loop that reads the channel's stdin (nothing is sent on it) and
 * ends it at EOF; when the command ends first the loop is ended, and its exit status is this
 * one's. The script is fixed; the command is its arguments ("$@"), never evaluated by a shell.
 */
export const UNTIL_STDIN_ENDS = [
  'LC_ALL=C; export LC_ALL; exec 3<&0 </dev/null',
  '"$@" 3<&- & c=$!',
  '{ while read -r _; do :; done <&3; kill "$c"; } >/dev/null 2>&1 & w=$!',
  'exec 3<&-; wait "$c"; s=$?; kill "$w" 2>/dev/null; exit "$s"',
].join('; ');

/** `command ARGS` as the remote command line, run so that it ends when ssh's channel closes. */
export function untilChannelCloses(command: readonly string[]): string {
  return ['sh', '-c', UNTIL_STDIN_ENDS, 'sh', ...command].map(shellQuote).join(' ');
}

/**
 * virsh as run on the connection's host: `virsh -c URI ARGS`, in the C locale (its words are
 * parsed); through ssh, ended there when ssh ends (untilChannelCloses).
 */
export function virshInvocation(connection: LibvirtConnection, virshArgs: readonly string[]): Invocation {
  const args = ['-c', connection.uri, ...virshArgs];
  if (connection.kind === 'local') return { command: 'virsh', args };
  return sshInvocation(connection.ssh, [], untilChannelCloses(['virsh', ...args]));
}

/**
 * Starts virsh on the connection's host; it ends with vconsole. Through ssh its stdin stays open
 * while it runs (its end ends virsh on the host); here virsh gets an empty one.
 */
export function spawnVirsh(connection: LibvirtConnection, virshArgs: readonly string[]): ChildProcess {
  const child = spawnInvocation(virshInvocation(connection, virshArgs));
  child.stdin?.on('error', () => undefined);
  if (connection.kind === 'local') child.stdin?.end();
  return child;
}

/** virsh (or ssh) failed: the message is its own `error:` line, made safe to print. */
export class VirshError extends VconsoleError {
  constructor(
    message: string,
    /** What virsh said, every line, for matching (`failed to get domain`). */
    readonly said: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'VirshError';
  }
}

/** The program could not be started at all (not installed). */
export class MissingProgramError extends VconsoleError {}

/** The lines virsh prints that say what went wrong, one line: `error: failed to get domain 'x'`. */
export function virshComplaint(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const errors = lines.filter((line) => /^error:/i.test(line)).map((line) => line.replace(/^error:\s*/i, ''));
  const chosen = errors.length > 0 ? errors.join(': ') : lines[lines.length - 1];
  return chosen === undefined ? undefined : terminalSafe(chosen).slice(0, 500);
}

/** Starts a host command (virsh, ssh); it ends with vconsole, however vconsole ends. */
export function spawnInvocation(invocation: Invocation, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return endsWithVconsole(
    spawn(invocation.command, invocation.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...env, LC_ALL: 'C' },
      windowsHide: true,
    }),
  );
}

/**
 * Runs virsh on the connection's host and resolves with what it printed. A failure rejects with
 * virsh's (or ssh's) own error line; more output than the limit, or no answer by the deadline,
 * ends the command.
 */
export function runVirsh(
  connection: LibvirtConnection,
  virshArgs: readonly string[],
  signal?: AbortSignal,
  { timeoutMs = VIRSH_TIMEOUT_MS, limitBytes = VIRSH_OUTPUT_LIMIT_BYTES } = {},
): Promise<string> {
  const invocation = virshInvocation(connection, virshArgs);
  const where = describeConnection(connection);
  return new Promise((resolve, reject) => {
    const child = spawnVirsh(connection, virshArgs);
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: VconsoleError | undefined;
    const stop = (why: VconsoleError) => {
      failure ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new VconsoleError(`virsh on ${where} did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const onAbort = () => stop(new VconsoleError('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limitBytes) return stop(new VconsoleError(`virsh on ${where} printed more than ${limitBytes} bytes`));
      out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_LIMIT_BYTES) err += chunk.toString('utf8');
    });
    child.once('error', (cause: NodeJS.ErrnoException) => {
      if (cause.code === 'ENOENT')
        failure ??= new MissingProgramError(`${invocation.command} is not installed here`, {
          hint: connection.kind === 'local' ? 'install libvirt-clients (virsh)' : 'install openssh-client (ssh)',
          cause,
        });
      else failure ??= new VconsoleError(`cannot run ${invocation.command}: ${describeError(cause)}`, { cause });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const said = err;
      const complaint = virshComplaint(said) ?? `exit code ${code ?? 'none'}`;
      const over = connection.kind === 'ssh' && code === 255 ? `ssh to ${sshAuthority(connection.ssh)} failed: ` : '';
      reject(new VirshError(`${over}${complaint}`, said));
    });
  });
}
