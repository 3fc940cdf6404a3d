import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { redactSecrets } from '../errors.js';
import type { ViewerCommand } from './types.js';

/** How a viewer process ended. */
export type ViewerOutcome =
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
    while (this.size - this.chunks[0].length >= this.limit) this.size -= this.chunks.shift()!.length;
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    const kept = all.subarray(Math.max(0, all.length - this.limit));
    return redactSecrets(kept.toString('utf8').replace(/^\uFFFD+/, ''));
  }
}

/**
 * One supervised viewer. Emits `exit` (ViewerExit) exactly once; `exited` resolves with
 * the same value. The child is not detached, so it goes when vconsole's process group does.
 */
export class ViewerProcess extends EventEmitter<{ exit: [ViewerExit] }> {
  readonly command: ViewerCommand;
  readonly exited: Promise<ViewerExit>;
  private readonly child: ChildProcess;
  private readonly startedAt = Date.now();
  private readonly stdout: OutputTail;
  private readonly stderr: OutputTail;
  private stopRequested = false;
  private result: ViewerExit | undefined;

  constructor(command: ViewerCommand, private readonly options: LaunchOptions = {}) {
    super();
    this.command = command;
    const limit = options.tailBytes ?? 4096;
    this.stdout = new OutputTail(limit);
    this.stderr = new OutputTail(limit);
    let settle!: (exit: ViewerExit) => void;
    this.exited = new Promise((resolve) => (settle = resolve));
    this.once('exit', (exit) => settle(exit));

    this.child = spawn(command.command, command.args, {
      detached: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env,
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
  }

  /** The viewer's process id; undefined when it could not start. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the process has exited (or failed to start). */
  get running(): boolean {
    return this.result === undefined;
  }

  /**
   * Ends the viewer: SIGTERM, then SIGKILL if it is still there after `graceMs` (on Windows
   * `kill()`, which terminates at once). Resolves when it is gone; at once if it already is.
   */
  stop(graceMs = this.options.graceMs ?? 1000): Promise<ViewerExit> {
    if (this.result) return Promise.resolve(this.result);
    this.stopRequested = true;
    if ((this.options.platform ?? process.platform) === 'win32') {
      this.child.kill();
    } else {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      void this.exited.then(() => clearTimeout(timer));
    }
    return this.exited;
  }

  /** Lets the last output arrive (streams close) but never waits on a grandchild holding them. */
  private async afterExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const drained = (stream: Readable | null) =>
      stream && !stream.readableEnded && !stream.destroyed ? new Promise<void>((resolve) => stream.once('close', () => resolve())) : Promise.resolve();
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
  const lastLine = (exit.stderrTail || exit.stdoutTail)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .pop();
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
