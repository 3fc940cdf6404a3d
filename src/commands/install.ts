// `vconsole install --via HOST`: the single executable that runs on HOST, copied through the
// user's ssh into ~/.local/bin/vconsole there, its checksum verified there before it replaces
// anything.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { VconsoleError } from '../errors.js';
import { endsWithVconsole } from '../net/child-processes.js';
import { sshCommandLine } from '../net/ssh-command.js';
import { terminalSafe } from '../text/terminal-text.js';
import { VERSION } from '../version.js';
import {
  parseViaAddress,
  sshArgs,
  type ViaAddress,
  findExecutable,
  hostKindFromUname,
  executableName,
  sshCommandFrom,
} from '../via/index.js';

interface InstallIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Where it goes on the far side, in the far shell's words. */
const FAR_DIR = '$HOME/.local/bin';

/** Exit code of the far script when the checksum differs. */
const CHECKSUM_DIFFERS = 86;

/** Copies the matching executable to HOST; resolves once it is there and runs. */
export async function runInstallCommand(viaText: string, io: InstallIo, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const address = parseViaAddress(viaText);
  const ssh = sshCommandFrom(env);
  const uname = await runSsh(ssh, address, 'uname -sm');
  if (uname.code !== 0) throw sshFailure(address, uname, 'could not ask it its OS and architecture');
  const kind = hostKindFromUname(uname.stdout);
  const said = terminalSafe(kind.said || 'an OS uname does not name');
  if (!kind.target)
    throw new VconsoleError(`${address.text} runs ${said}: vconsole has no single executable for it`, {
      hint: 'install Node.js there and npm install -g vconsole, or use a linux-x64, linux-arm64 or macos-x64 host',
    });
  const { file, lookedIn } = findExecutable(kind.target, env);
  if (!file)
    throw new VconsoleError(`no ${executableName(kind.target)} here for ${address.text} (${said}): looked in ${lookedIn.join(', ')}`, {
      hint: 'npm run package builds it into dist/bin, or set VCONSOLE_EXECUTABLES to the directory holding it',
    });
  const size = statSync(file).size;
  const sum = await sha256(file);
  io.stderr.write(
    `vconsole: ${address.text} runs ${said}: copying ${terminalSafe(file)} (${(size / 1e6).toFixed(1)} MB, sha256 ${sum.slice(0, 16)}…) to ~/.local/bin/vconsole there\n`,
  );
  const copied = await runSsh(ssh, address, farInstallScript(sum), file);
  if (copied.code !== 0) throw copyFailure(address, copied);
  const check = await runSsh(ssh, address, `"${FAR_DIR}/vconsole" version`);
  if (check.code !== 0) throw sshFailure(address, check, 'the copied vconsole does not run there');
  const installed = terminalSafe(check.stdout.trim().split('\n')[0] ?? '').trim();
  io.stderr.write(
    `vconsole: installed vconsole ${installed} on ${address.text} as ~/.local/bin/vconsole; --via ${address.text} finds it there\n`,
  );
  io.stderr.write(versionMismatch(installed, address.text) ?? '');
}

/** The line that says the executable copied is another release than this vconsole, if it is. */
function versionMismatch(installed: string, host: string): string | undefined {
  if (installed === VERSION) return undefined;
  return `vconsole: warning: that is not this vconsole's version (${VERSION}): --via ${host} says so each time it connects, and refuses it if their via protocols differ; build this version's executable (npm run package) and install it again\n`;
}

/**
 * The far side's part, for `sh -c`: into a temporary file, its checksum compared, then made
 * executable and moved over the old one (an interrupted copy never leaves a broken vconsole).
 */
function farInstallScript(sum: string): string {
  const script = [
    'set -e',
    `d="${FAR_DIR}"`,
    'mkdir -p "$d"',
    'cat > "$d/vconsole.tmp"',
    's=$( { sha256sum < "$d/vconsole.tmp" 2>/dev/null || shasum -a 256 < "$d/vconsole.tmp"; } | cut -d" " -f1)',
    `if [ "$s" != "${sum}" ]; then rm -f "$d/vconsole.tmp"; echo "checksum $s differs" >&2; exit ${CHECKSUM_DIFFERS}; fi`,
    'chmod 755 "$d/vconsole.tmp"',
    'mv "$d/vconsole.tmp" "$d/vconsole"',
  ].join('; ');
  return `sh -c '${script}'`;
}

interface SshRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** ssh ARGS REMOTE, `input` (a file) on its stdin; never rejects. */
function runSsh(ssh: string, address: ViaAddress, remote: string, input?: string): Promise<SshRun> {
  return new Promise((resolve) => {
    const line = sshCommandLine(ssh, [...sshArgs(address), remote]);
    const child = endsWithVconsole(spawn(line.command, line.args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-8192)));
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8192)));
    child.once('error', (err) => resolve({ code: null, stdout, stderr: err.message }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    if (input && child.stdin) {
      child.stdin.on('error', () => undefined); // ssh gone: its exit says why
      createReadStream(input).pipe(child.stdin);
    }
  });
}

function lastLine(text: string): string {
  return terminalSafe(text.trim().split('\n').pop() ?? '').trim();
}

function sshFailure(address: ViaAddress, run: SshRun, what: string): VconsoleError {
  const said = lastLine(run.stderr);
  return new VconsoleError(`${address.text}: ${run.code === 255 ? 'ssh failed' : what}${said ? `: ${said}` : ''}`, {
    hint: run.code === 255 ? 'check that ssh HOST works from this shell' : undefined,
  });
}

function copyFailure(address: ViaAddress, run: SshRun): VconsoleError {
  const said = lastLine(run.stderr);
  if (/no space left/i.test(run.stderr))
    return new VconsoleError(`no space left on ${address.text} for ~/.local/bin/vconsole`, {
      hint: 'free some space in the home directory there',
    });
  if (run.code === CHECKSUM_DIFFERS)
    return new VconsoleError(`the copy on ${address.text} is not what was sent (${said}); nothing was replaced`, { hint: 'run it again' });
  return sshFailure(address, run, 'the copy failed');
}

function sha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
