import { EventEmitter } from 'node:events';
import { buildViewerCommand } from './command.js';
import { describeViewerExit, launchViewer, type LaunchOptions, type ViewerProcess } from './viewer-process.js';
import type { ViewerCandidate, ViewerTarget } from './types.js';

export type ViewerLifecycle = 'open' | 'closed' | 'failed';

export interface ViewerStatusEvent {
  /** The caller's key for the viewer (a session id). */
  key: number;
  state: ViewerLifecycle;
  viewerName: string;
  exitCode?: number | null;
  /** One line: how it ended, with the last line of its output when it failed. */
  message?: string;
}

/**
 * The viewers `open` started, one per key at most. Emits `status` when one opens, closes or
 * fails; `stopAll()` terminates every one (SIGTERM, then SIGKILL after the grace).
 */
export class ViewerSupervisor extends EventEmitter<{ status: [ViewerStatusEvent] }> {
  private readonly running = new Map<number, ViewerProcess>();
  /** Viewers whose console saw a client while they ran: they reached it, so they did not fail to start. */
  private readonly reachedConsole = new WeakSet<ViewerProcess>();

  constructor(
    private readonly viewer: ViewerCandidate,
    private readonly extraArgs: string[],
    private readonly options: LaunchOptions = {},
  ) {
    super();
  }

  /** Launches the viewer for `key`, replacing one that runs for it already. */
  async launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void> {
    await this.stop(key);
    const command = buildViewerCommand(this.viewer, { ...target, extraArgs: this.extraArgs });
    const process = launchViewer(command, this.options);
    this.running.set(key, process);
    this.emit('status', { key, state: 'open', viewerName: this.viewer.name });
    process.once('exit', (exit) => {
      if (this.running.get(key) === process) this.running.delete(key);
      if (exit.outcome === 'stopped' || exit.outcome === 'detached') return;
      // A viewer closed soon after it connected (TigerVNC exits 1 when its window is closed)
      // was used, not broken: only one that never reached its console failed to start.
      const outcome = exit.outcome === 'failed' && this.reachedConsole.has(process) ? 'closed' : exit.outcome;
      this.emit('status', {
        key,
        state: outcome === 'failed' ? 'failed' : 'closed',
        viewerName: this.viewer.name,
        exitCode: exit.code,
        message: describeViewerExit({ ...exit, outcome }, this.viewer.name),
      });
    });
  }

  /** The console of `key` has a client now: most likely the viewer started for it. */
  noteConsoleClient(key: number): void {
    const process = this.running.get(key);
    if (process) this.reachedConsole.add(process);
  }

  async stop(key: number, graceMs?: number): Promise<void> {
    const process = this.running.get(key);
    if (!process) return;
    this.running.delete(key);
    await process.stop(graceMs);
  }

  async stopAll(graceMs?: number): Promise<void> {
    await Promise.all([...this.running.keys()].map((key) => this.stop(key, graceMs)));
  }
}
