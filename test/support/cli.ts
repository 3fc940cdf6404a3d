import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const VCONSOLE_BIN = path.join(REPO_ROOT, 'bin', 'vconsole.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `vconsole ARGS` to completion (for commands that exit by themselves). */
export async function runVconsole(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  where: StartOptions = {},
): Promise<RunResult> {
  const child = startVconsole(args, env, where);
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  const [code, signal] = (await once(child.process, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout: child.stdout(), stderr: child.stderr() };
}

export interface RunningVconsole {
  process: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the next `count` JSON lines printed on stdout. */
  jsonLines(count: number, timeoutMs?: number): Promise<Record<string, unknown>[]>;
  /** Resolves once stderr contains `pattern`. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: nothing vconsole started gets cleaned up. */
  kill(): void;
  /**
   * SIGINT as a user would, so vconsole closes its viewers; SIGKILL if it lingers. The grace is
   * long (what a test asserts after a stop is vconsole's own cleanup, and on a loaded 2-core
   * machine that took over 5 s); only a vconsole that hangs waits it out.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * What the spawned CLI takes for its display: `open` starts viewers only where a window can
 * show (DISPLAY set), and the stand-in viewers of the tests need none. No X server answers to
 * this name, so a real viewer fails as it would without one. `DISPLAY: undefined` in `env`
 * takes it away (a jump host without X forwarding).
 */
export const TEST_DISPLAY = 'vconsole-test-no-x-server:0';

/** How long `stop()` lets vconsole end by itself after its SIGINT before it is killed. */
const STOP_GRACE_MS = 25_000;

export interface StartOptions {
  /** The working directory (default: the test runner's). */
  cwd?: string;
  /** Its limit of open files (`ulimit -n`, set by sh before it runs vconsole): a desktop's 1024, or less. */
  openFiles?: number;
  /** The launcher run (default bin/vconsole.js): a link to it under another name, as kubectl runs a plugin. */
  bin?: string;
}

/** Starts `vconsole ARGS` as a user would, from bin/, with a clean environment plus `env`. */
export function startVconsole(args: string[], env: NodeJS.ProcessEnv = {}, where: StartOptions = {}): RunningVconsole {
  const command = [process.execPath, where.bin ?? VCONSOLE_BIN, ...args];
  const limited =
    where.openFiles === undefined ? command : ['/bin/sh', '-c', 'ulimit -n "$0" && exec "$@"', String(where.openFiles), ...command];
  const child = spawn(limited[0], limited.slice(1), {
    cwd: where.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DISPLAY: TEST_DISPLAY, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  child.stderr.on('data', (d) => (err += d.toString()));
  const exited = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const waitUntil = async (check: () => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    let done = false;
    void exited.then(() => (done = true));
    while (!check()) {
      if (done && !check()) throw new Error(`vconsole exited before ${what}; stderr: ${err}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    async jsonLines(count, timeoutMs = 20_000) {
      const lines = () => out.split('\n').filter((l) => l.startsWith('{'));
      await waitUntil(() => lines().length >= count, `${count} JSON line(s)`, timeoutMs);
      return lines()
        .slice(0, count)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    async waitForStderr(pattern, timeoutMs = 20_000) {
      await waitUntil(() => pattern.test(err), `stderr matching ${pattern}`, timeoutMs);
    },
    exit: () => exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    async stop(graceMs = STOP_GRACE_MS) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Connects to a local port and reads the first `bytes` bytes the server sends. */
export async function readGreeting(port: number, bytes = 12, host = '127.0.0.1'): Promise<{ text: string; socket: net.Socket }> {
  const socket = net.connect(port, host);
  let data = Buffer.alloc(0);
  while (data.length < bytes) {
    const chunk = await Promise.race([
      once(socket, 'data').then(([c]) => c as Buffer),
      once(socket, 'close').then(() => {
        throw new Error(`connection to ${port} closed after ${data.length} bytes`);
      }),
    ]);
    data = Buffer.concat([data, chunk]);
  }
  return { text: data.subarray(0, bytes).toString('latin1'), socket };
}

/** True when nothing listens on the port any more. */
export async function portIsClosed(port: number, host = '127.0.0.1'): Promise<boolean> {
  const socket = net.connect(port, host);
  try {
    await once(socket, 'connect');
    return false;
  } catch {
    return true;
  } finally {
    socket.destroy();
  }
}
