import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';

/** Debian's OpenSSH server; an absolute path because sshd re-executes itself. */
export const SSHD = '/usr/sbin/sshd';

export interface SshServer {
  /** The loopback port sshd listens on. */
  port: number;
  /** The `Host` alias the client config names: `ssh -F configFile HOST_ALIAS` reaches this sshd. */
  hostAlias: string;
  /** The user the authorized key logs in as (the user running the tests). */
  user: string;
  /** A client config: the alias, the port, the key, the pinned host key, BatchMode. */
  configFile: string;
  /** `ssh -F CONFIG`: what a program that runs the user's ssh is told to run (VCONSOLE_SSH_COMMAND). */
  sshCommand: string;
  /** The client's private key (ed25519, 0600). */
  identityFile: string;
  process: RunningProcess;
  /** sshd's log (-E): connections, sessions, disconnections. */
  log(): Promise<string>;
}

/**
 * Starts a real OpenSSH server on a free loopback port with its own host key, config and one
 * authorized key for the current user, and writes a client config that reaches it without
 * touching ~/.ssh: ssh reads ~/.ssh from the passwd entry, not $HOME, so tests pass `-F`.
 * StrictModes is off because the key lives in a temp dir under a world-writable /tmp.
 * `configLines` adds lines to sshd_config (e.g. `SetEnv HOME=DIR`: sessions in a temp home).
 */
export async function startSshd(
  lab: ProcessLab,
  hostAlias = 'vconsole-test-host',
  { configLines = [] }: { configLines?: readonly string[] } = {},
): Promise<SshServer> {
  const dir = await lab.tempDir('sshd');
  const hostKey = join(dir, 'host_ed25519');
  const identityFile = join(dir, 'client_ed25519');
  for (const key of [hostKey, identityFile]) {
    const made = await runProgram('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'vconsole-e2e', '-f', key], { timeoutMs: 30_000 });
    if (made.code !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  }
  const authorizedKeys = join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, await readFile(`${identityFile}.pub`), { mode: 0o600 });
  // Privilege separation needs this directory; Debian's init scripts make it, a bare container has none.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const user = userInfo().username;
  const logFile = join(dir, 'sshd.log');

  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freeLoopbackPort();
    const serverConfig = join(dir, 'sshd_config');
    await writeFile(
      serverConfig,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${authorizedKeys}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'StrictModes no',
        'UsePAM no',
        `PidFile ${join(dir, 'sshd.pid')}`,
        'AllowTcpForwarding yes',
        'AllowStreamLocalForwarding yes',
        'LogLevel VERBOSE',
        ...configLines,
        '',
      ].join('\n'),
    );
    const proc = lab.start('sshd', SSHD, ['-D', '-E', logFile, '-f', serverConfig]);
    const listening = await pollFor(
      async () => {
        if (proc.hasExited()) return false;
        const log = await readFile(logFile, 'utf8').catch(() => '');
        if (/Server listening on 127\.0\.0\.1 port/.test(log)) return true;
        if (/Bind to port .* failed|Cannot bind any address/.test(log)) return false;
        return undefined;
      },
      { what: 'sshd to listen', timeoutMs: 30_000, detail: () => proc.describe() },
    );
    if (!listening) {
      lastError = proc.describe() + (await readFile(logFile, 'utf8').catch(() => ''));
      await proc.stop();
      continue;
    }
    const publicHostKey = (await readFile(`${hostKey}.pub`, 'utf8')).trim().split(/\s+/).slice(0, 2).join(' ');
    const knownHosts = join(dir, 'known_hosts');
    await writeFile(knownHosts, `[127.0.0.1]:${port} ${publicHostKey}\n`, { mode: 0o600 });
    const configFile = join(dir, 'ssh_config');
    await writeFile(
      configFile,
      [
        `Host ${hostAlias}`,
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        `  User ${user}`,
        `  IdentityFile ${identityFile}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${knownHosts}`,
        '  StrictHostKeyChecking yes',
        '  BatchMode yes',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const sshCommand = `ssh -F ${configFile}`;
    const server: SshServer = {
      port,
      hostAlias,
      user,
      configFile,
      sshCommand,
      identityFile,
      process: proc,
      log: () => readFile(logFile, 'utf8').catch(() => ''),
    };
    await pollFor(
      async () => {
        if (proc.hasExited()) throw new GiveUp(`sshd exited:\n${proc.describe()}`);
        const run = await runProgram('ssh', ['-F', configFile, hostAlias, 'true'], { timeoutMs: 30_000 });
        return run.code === 0 ? true : undefined;
      },
      { what: 'a first ssh session to the test sshd', timeoutMs: 60_000, detail: async () => `${proc.describe()}\n${await server.log()}` },
    );
    return server;
  }
  throw new Error(`sshd did not start on a free port:\n${lastError}`);
}
