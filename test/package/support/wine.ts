// Runs Windows programs under wine for test/package/sea-wine.test.ts: one prefix (a fresh
// `wineboot --init`, win10, the viewers' Program Files layout), the Windows executable with its
// stdio as regular files, and the pinned Node.js for Windows (from `npm run package`'s cache)
// for what a Windows program has to do itself (pipes, a viewer that stays open).
//
// Why files: a Unix pipe or socket as stdio of a wine process is a handle libuv cannot open
// (`Error: open EBADF`, plain node.exe alike); pipes a Windows process makes work. See
// docs/SINGLE-EXECUTABLE.md, "Windows under wine".
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollFor } from '../../e2e/support/poll.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const EXE = path.join(ROOT, 'dist', 'bin', 'vconsole-win-x64.exe');
/** The pinned Node.js for Windows that `npm run package` keeps (scripts/package.mjs). */
export const WINDOWS_NODE = path.join(
  process.env.PKG_CACHE_PATH ?? path.join(homedir(), '.pkg-cache'),
  'sea',
  'node-v22.23.3-win-x64',
  'bin',
  'node.exe',
);

function findWine(): string | undefined {
  if (process.env.VCONSOLE_WINE) return process.env.VCONSOLE_WINE;
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((dir) => path.join(dir, 'wine64'));
  return ['/usr/lib/wine/wine64', ...onPath].find((file) => existsSync(file));
}
export const WINE = findWine();

export const WINE_SKIP_REASON = !WINE
  ? 'wine64 is not installed (apt-get install --no-install-recommends wine64; or set VCONSOLE_WINE)'
  : !existsSync(EXE)
    ? 'dist/bin/vconsole-win-x64.exe is absent (run `npm run package`)'
    : !existsSync(WINDOWS_NODE)
      ? `${WINDOWS_NODE} is absent (run \`npm run package\`)`
      : undefined;

/** A Unix path as wine's Z: drive names it. */
export function toWindowsPath(file: string): string {
  return `Z:${file.replaceAll('/', '\\')}`;
}

/** Linux PIDs of the processes whose command line contains every one of `parts`. */
export function processesWith(...parts: string[]): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        return parts.every((part) => cmdline.includes(part));
      } catch {
        return false;
      }
    });
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  /** Waits for `count` JSON lines on stdout (a file, polled). */
  lines(count: number): Promise<string[]>;
  stderr(): string;
}

export class WinePrefix {
  readonly scratch = mkdtempSync(path.join(tmpdir(), 'vconsole-wine-'));
  readonly dir = path.join(this.scratch, 'prefix');
  readonly wineserver = path.join(path.dirname(WINE!), 'wineserver');
  private runs = 0;

  /** `wineboot --init`, Windows 10 (Node.js refuses wine's default Windows 7), `files` under C:\. */
  create(files: readonly string[]): void {
    const boot = spawnSync(WINE!, ['wineboot', '--init'], { env: this.env(), encoding: 'utf8', timeout: 240_000 });
    if (boot.status !== 0) throw new Error(`wineboot --init: exit ${boot.status}: ${boot.stderr}`);
    const win10 = spawnSync(WINE!, ['winecfg', '-v', 'win10'], { env: this.env(), encoding: 'utf8', timeout: 60_000 });
    if (win10.status !== 0) throw new Error(`winecfg -v win10: exit ${win10.status}: ${win10.stderr}`);
    spawnSync(this.wineserver, ['-w'], { env: this.env(), timeout: 120_000 }); // the registry is on disk
    for (const file of files) this.writeDriveC(file, '');
  }

  /** Ends what wine started in this prefix (wineserver, winedevice.exe) and removes it. */
  close(): void {
    spawnSync(this.wineserver, ['-k'], { env: this.env(), timeout: 60_000 });
    rmSync(this.scratch, { recursive: true, force: true });
  }

  /** `C:\` + `file` (forward slashes) as a Unix path inside the prefix. */
  driveC(file: string): string {
    return path.join(this.dir, 'drive_c', file);
  }

  writeDriveC(file: string, content: string | Buffer): string {
    const full = this.driveC(file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
    return full;
  }

  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      PATH: '/usr/bin:/bin',
      HOME: this.scratch,
      LANG: 'C.UTF-8',
      WINEPREFIX: this.dir,
      WINEDEBUG: '-all',
      WINEDLLOVERRIDES: 'mscoree,mshtml=', // no Mono / Gecko install dialogs
      NODE_SKIP_PLATFORM_CHECK: '1',
      ...extra,
    };
  }

  /** Runs the Windows `program` to its end, stdin from `input`, stdout and stderr to files. */
  run(program: string, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Run {
    const files = this.stdioFiles(options.input);
    try {
      const run = spawnSync(WINE!, [program, ...args], {
        cwd: this.scratch,
        env: this.env(options.env),
        stdio: files.stdio,
        timeout: 120_000,
      });
      return { status: run.status, stdout: readFileSync(files.out, 'utf8'), stderr: readFileSync(files.err, 'utf8') };
    } finally {
      files.close();
    }
  }

  start(program: string, args: string[], env: NodeJS.ProcessEnv = {}): Started {
    const files = this.stdioFiles();
    const child = spawn(WINE!, [program, ...args], { cwd: this.scratch, env: this.env(env), stdio: files.stdio });
    files.close(); // the child holds its own copies
    const stderr = () => readFileSync(files.err, 'utf8');
    return {
      child,
      stderr,
      lines: (count) =>
        pollFor(
          () => {
            if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode})`);
            const found = readFileSync(files.out, 'utf8')
              .split('\n')
              .filter((line) => line.startsWith('{'));
            return found.length >= count ? found.slice(0, count) : undefined;
          },
          { what: `${count} JSON lines from ${path.basename(program)}`, timeoutMs: 90_000, detail: stderr },
        ),
    };
  }

  /** Files for one run's stdio: stdin from `input`, stdout, stderr. */
  private stdioFiles(input?: string): { stdio: StdioOptions; out: string; err: string; close(): void } {
    const n = ++this.runs;
    const inFile = path.join(this.scratch, `run-${n}.in`);
    writeFileSync(inFile, input ?? '');
    const out = path.join(this.scratch, `run-${n}.out`);
    const err = path.join(this.scratch, `run-${n}.err`);
    const fds = [openSync(inFile, 'r'), openSync(out, 'w'), openSync(err, 'w')];
    return { stdio: fds, out, err, close: () => fds.forEach((fd) => closeSync(fd)) };
  }
}

/** Reads from a TCP port until `size` bytes arrived. */
export async function readGreeting(port: number, size: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  try {
    let received = Buffer.alloc(0);
    for await (const chunk of socket) {
      received = Buffer.concat([received, chunk as Buffer]);
      if (received.length >= size) return received.subarray(0, size).toString('latin1');
    }
    throw new Error(`connection closed after ${received.length} bytes`);
  } finally {
    socket.destroy();
  }
}

/** SIGINT (what Ctrl+C in a Windows console is: wine makes it a console control event), then the exit. */
export async function interruptAndWait(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    return { code, signal };
  } finally {
    clearTimeout(timer);
  }
}
