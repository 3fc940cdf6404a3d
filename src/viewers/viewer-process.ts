import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { redactSecrets } from '../errors.js';
import { withoutCredentialVariables } from '../secrets.js';
import { clip, terminalSafe } from '../text/terminal-text.js';
import { killTreeNow, runsInOwnGroup, signalTree } from './process-tree.js';
import type { ViewerCommand } from './types.js';

/** How a viewer process ended. */
type ViewerOutcome =
  /** It ran and then exited on its own (the user closed the window, the server went away). */
  | 'closed'
  /** It could not start, or died within `earlyExitMs` with a non-zero code or a signal. */
  | 'failed'
  /** A launcher such as macOS `open` handed the address on and exited 0. */
  | 'detached'
  /** vconsole stopped it with `stop()`. */
  | 'stopped';

export interface ViewerExit {
  outcome: ViewerOutcome;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Last bytes (default 4 KB) of what the viewer wrote, secrets redacted. */
  stderrTail: string;
  stdoutTail: string;
  /** Milliseconds from spawn to exit. */
  ranMs: number;
  /** Why it could not start (`ENOENT`, `EACCES`, ...), when it could not. */
  spawnError?: string;
}

export interface LaunchOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A non-zero exit sooner than this counts as a failed start. Default 3000. */
  earlyExitMs?: number;
  /** Bytes of stdout and stderr kept. Default 4096. */
  tailBytes?: number;
  /** Default grace between SIGTERM and SIGKILL in `stop()`. Default 1000. */
  graceMs?: number;
  /** Platform whose way of stopping to use; default this machine's. */
  platform?: NodeJS.Platform;
}

/** Keeps the last `limit` bytes written to a stream. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Drop whole chunks from the front while what is left still holds `limit` bytes.
    for (let oldest: Buffer | undefined = this.chunks[0]; oldest && this.size - oldest.length >= this.limit; oldest = this.chunks[0]) {
      this.chunks.shift();
      this.size -= oldest.length;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    const kept = all.subarray(Math.max(0, all.length - this.limit));
    return redactSecrets(kept.toString('utf8').replace(/^\uFFFD+/, ''));
  }
}

/** Viewers not yet exited, for the `exit` hook: none may outlive vconsole. */
const liveViewers = new Set<ViewerProcess>();
let exitHookInstalled = false;

function trackUntilExit(viewer: ViewerProcess): void {
  liveViewers.add(viewer);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Viewers lead their own process groups, out of reach of the terminal's Ctrl+C and of
    // vconsole's own group: whatever way vconsole exits (process.exit, an uncaught error),
    // it takes them along.
    process.on('exit', () => {
      for (const live of liveViewers) live.killNow();
    });
  }
}

/**
 * One supervised viewer. Emits `exit` (ViewerExit) exactly once; `exited` resolves with
 * the same value. On POSIX it leads its own process group, so stopping it reaches whatever
 * it started (a wrapper script's real viewer); on Windows its tree is stopped with taskkill.
 */
export class ViewerProcess extends EventEmitter<{ exit: [ViewerExit] }> {
  readonly command: ViewerCommand;
  readonly exited: Promise<ViewerExit>;
  private readonly child: ChildProcess;
  private readonly startedAt = Date.now();
  private readonly stdout: OutputTail;
  private readonly stderr: OutputTail;
  private readonly platform: NodeJS.Platform;
  private stopRequested = false;
  private result: ViewerExit | undefined;

  constructor(
    command: ViewerCommand,
    private readonly options: LaunchOptions = {},
  ) {
    super();
    this.command = command;
    const limit = options.tailBytes ?? 4096;
    this.stdout = new OutputTail(limit);
    this.stderr = new OutputTail(limit);
    let settle!: (exit: ViewerExit) => void;
    this.exited = new Promise((resolve) => (settle = resolve));
    this.once('exit', (exit) => settle(exit));
    this.platform = options.platform ?? process.platform;

    this.child = spawn(command.command, command.args, {
      detached: runsInOwnGroup(process.platform),
      stdio: ['ignore', 'pipe', 'pipe'],
      // A viewer is another program: it gets no credential of vconsole's (OS_PASSWORD ...).
      env: withoutCredentialVariables(options.env ?? process.env),
      cwd: options.cwd,
      windowsHide: false,
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.stdout.push(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.child.once('error', (err: NodeJS.ErrnoException) => {
      // Spawn failures (ENOENT, EACCES) arrive here with no exit; later errors (a failed kill) are ignored.
      if (this.child.pid === undefined) this.finish(null, null, err.code ?? err.message);
    });
    this.child.once('exit', (code, signal) => void this.afterExit(code, signal));
    if (this.child.pid !== undefined) trackUntilExit(this);
  }

  /** The viewer's process id; undefined when it could not start. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The viewer's own process has exited (its output may still be draining). */
  private get leaderExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** True until the process has exited (or failed to start). */
  get running(): boolean {
    return this.result === undefined;
  }

  /**
   * Ends the viewer and everything it started: SIGTERM to its process group, then SIGKILL
   * to the group once the viewer has exited or `graceMs` has passed, whichever is first, so
   * no child that ignores SIGTERM stays behind (on Windows the tree is terminated at once).
   * Resolves when the viewer is gone; at once if it already is.
   */
  stop(graceMs = this.options.graceMs ?? 1000): Promise<ViewerExit> {
    const pid = this.child.pid;
    if (this.result || pid === undefined || this.stopRequested) return this.exited;
    this.stopRequested = true;
    if (this.platform === 'win32') {
      // Where taskkill fails, the viewer itself at least (TerminateProcess).
      signalTree(pid, this.platform, true, () => {
        if (!this.leaderExited) this.child.kill('SIGKILL');
      });
      return this.exited;
    }
    const killGroup = () => signalTree(pid, this.platform, true);
    if (this.leaderExited) {
      killGroup();
      return this.exited;
    }
    signalTree(pid, this.platform, false);
    const timer = setTimeout(killGroup, graceMs);
    // Right after the leader's exit its group id cannot have been reused yet: no member left
    // means ESRCH, nothing else.
    this.child.once('exit', () => {
      clearTimeout(timer);
      killGroup();
    });
    return this.exited;
  }

  /**
   * Kills the viewer and its tree before returning (SIGKILL to the group; `taskkill /T /F`
   * on Windows), for an exit that cannot wait. `exited` still settles, with outcome `stopped`,
   * if the event loop gets to run again.
   */
  killNow(): void {
    const pid = this.child.pid;
    if (this.result || pid === undefined || this.leaderExited) return;
    this.stopRequested = true;
    killTreeNow(pid, this.platform);
  }

  /** Lets the last output arrive (streams close) but never waits on a grandchild holding them. */
  private async afterExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const drained = (stream: Readable | null) =>
      stream && !stream.readableEnded && !stream.destroyed
        ? new Promise<void>((resolve) => stream.once('close', () => resolve()))
        : Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([drained(this.child.stdout), drained(this.child.stderr)]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 250))),
    ]);
    clearTimeout(timer);
    this.finish(code, signal);
  }

  private finish(code: number | null, signal: NodeJS.Signals | null, spawnError?: string): void {
    if (this.result) return;
    liveViewers.delete(this);
    const ranMs = Date.now() - this.startedAt;
    const early = ranMs < (this.options.earlyExitMs ?? 3000);
    let outcome: ViewerOutcome;
    if (spawnError !== undefined) outcome = 'failed';
    else if (this.stopRequested) outcome = 'stopped';
    else if (this.command.detaches && code === 0) outcome = 'detached';
    else if (early && code !== 0) outcome = 'failed';
    else outcome = 'closed';
    const exit: ViewerExit = { outcome, code, signal, stderrTail: this.stderr.text(), stdoutTail: this.stdout.text(), ranMs };
    if (spawnError !== undefined) exit.spawnError = spawnError;
    this.result = exit;
    this.emit('exit', exit);
  }
}

/** Starts `command` under supervision. Never throws: a failed start is an `exit` with outcome `failed`. */
export function launchViewer(command: ViewerCommand, options: LaunchOptions = {}): ViewerProcess {
  return new ViewerProcess(command, options);
}

/**
 * One line for the user about a viewer that ended, e.g.
 * `TigerVNC exited at once with code 1: unable to connect to socket: Connection refused (111)`.
 */
export function describeViewerExit(exit: ViewerExit, viewerName: string): string {
  if (exit.spawnError) {
    const why = exit.spawnError === 'ENOENT' ? 'not found' : exit.spawnError === 'EACCES' ? 'permission denied' : exit.spawnError;
    return `${viewerName} could not be started: ${why}`;
  }
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const lastLine = lastOutputLine(exit.stderrTail || exit.stdoutTail);
  switch (exit.outcome) {
    case 'failed':
      return `${viewerName} ${exit.signal ? how : `exited at once with code ${exit.code}`}${lastLine ? `: ${lastLine}` : ''}`;
    case 'detached':
      return `${viewerName} was opened`;
    case 'stopped':
      return `${viewerName} was stopped`;
    case 'closed':
      return `${viewerName} ${exit.code === 0 && !exit.signal ? 'was closed' : how}`;
  }
}

/** What a failed viewer's reason may take of a message line. */
const REASON_MAX_CHARS = 200;

/**
 * The last line a viewer wrote, which is where viewers say why they stopped, cut down to the
 * reason: GLib's `(remote-viewer:4242): Gtk-WARNING **: 20:24:22.777: ` prefix and the colon
 * of an empty value dropped (`cannot open display: ` with no DISPLAY), control characters
 * shown, length capped.
 */
function lastOutputLine(output: string): string | undefined {
  const last = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .pop();
  if (last === undefined) return undefined;
  const reason = last
    .replace(/^\([\w.-]+:\d+\): [\w.-]+-(?:WARNING|CRITICAL|ERROR|Message|INFO|DEBUG) \*\*: (?:\d\d:\d\d:\d\d\.\d+: )?/, '')
    .replace(/:$/, '');
  return clip(terminalSafe(reason || last), REASON_MAX_CHARS);
}
