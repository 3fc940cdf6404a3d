import { EventEmitter } from 'node:events';
import { buildViewerCommand } from './command.js';
import { describeViewerExit, launchViewer, type LaunchOptions, type ViewerProcess } from './viewer-process.js';
import type { ViewerCandidate, ViewerTarget } from './types.js';

/** `no-display`: no window can show here (displayHere), so none was started; the console is served. */
type ViewerLifecycle = 'open' | 'closed' | 'failed' | 'no-display';

export interface ViewerStatusEvent {
  /** The caller's key for the viewer (a session id). */
  key: number;
  state: ViewerLifecycle;
  viewerName: string;
  exitCode?: number | null;
  /**
   * For `closed` and `failed`, one line: how the viewer ended, with the last line of its output
   * when it failed (`TigerVNC exited at once with code 1: Can't open display: `). It is the
   * viewer's failure, the console behind it is unaffected.
   */
  message?: string;
}

/**
 * The viewers `open` started, one per key at most. Emits `status` when one opens, closes or
 * fails. Launches and stops for one key run one after the other, so a key never has two
 * viewers alive, however fast `o` is pressed. `stopAll()` ends every viewer politely (SIGTERM,
 * SIGKILL after the grace), `killAllNow()` at once; after either, nothing more is launched.
 */
export class ViewerSupervisor extends EventEmitter<{ status: [ViewerStatusEvent] }> {
  /** The viewer each key has now. */
  private readonly current = new Map<number, ViewerProcess>();
  /** Every viewer not yet exited, also those being stopped: what `killAllNow()` must reach. */
  private readonly alive = new Set<ViewerProcess>();
  /** Per key, the end of its queue of launches and stops. */
  private readonly queues = new Map<number, Promise<void>>();
  /** Per key, the number of the latest request: a queued launch that is no longer the latest gives way. */
  private readonly latestRequest = new Map<number, number>();
  private requestCount = 0;
  private closed = false;
  /** Viewers whose console saw a client while they ran: they reached it, so they did not fail to start. */
  private readonly reachedConsole = new WeakSet<ViewerProcess>();

  constructor(
    private readonly viewer: ViewerCandidate,
    private readonly extraArgs: string[],
    private readonly options: LaunchOptions = {},
  ) {
    super();
  }

  /**
   * Launches the viewer for `key`, replacing the one it has: that one is stopped (and gone)
   * first. Of launches requested while an earlier one is still stopping the old viewer, only
   * the last starts one. Resolves once the new viewer is spawned, or the launch gave way.
   */
  launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void> {
    const request = this.newRequest(key);
    return this.enqueue(key, async () => {
      await this.stopCurrent(key);
      if (this.closed || this.latestRequest.get(key) !== request) return;
      this.start(key, target);
    });
  }

  /** The console of `key` has a client now: most likely the viewer started for it. */
  noteConsoleClient(key: number): void {
    const viewer = this.current.get(key);
    if (viewer) this.reachedConsole.add(viewer);
  }

  /** Stops the viewer of `key`, and any launch for it still queued. Resolves when it is gone. */
  stop(key: number, graceMs?: number): Promise<void> {
    this.newRequest(key);
    return this.enqueue(key, () => this.stopCurrent(key, graceMs));
  }

  /** Stops every viewer and launches nothing after; resolves when all are gone. */
  async stopAll(graceMs?: number): Promise<void> {
    this.closed = true;
    const keys = new Set([...this.current.keys(), ...this.queues.keys()]);
    await Promise.all([...keys].map((key) => this.stop(key, graceMs)));
  }

  /**
   * SIGKILLs every viewer and its process group (its tree on Windows) before returning, also
   * those still in their stop grace, and launches nothing after: for an exit that cannot wait
   * for `stopAll()`, such as a second Ctrl+C.
   */
  killAllNow(): void {
    this.closed = true;
    for (const viewer of this.alive) viewer.killNow();
  }

  private newRequest(key: number): number {
    this.latestRequest.set(key, ++this.requestCount);
    return this.requestCount;
  }

  /** Runs `step` after everything queued for `key` before it (an earlier step's error went to its own caller). */
  private enqueue(key: number, step: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(step);
    this.queues.set(key, next);
    const forget = () => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    };
    next.then(forget, forget);
    return next;
  }

  private async stopCurrent(key: number, graceMs?: number): Promise<void> {
    const viewer = this.current.get(key);
    if (!viewer) return;
    this.current.delete(key);
    await viewer.stop(graceMs);
  }

  private start(key: number, target: Omit<ViewerTarget, 'extraArgs'>): void {
    const command = buildViewerCommand(this.viewer, { ...target, extraArgs: this.extraArgs });
    const viewer = launchViewer(command, this.options);
    this.current.set(key, viewer);
    this.alive.add(viewer);
    this.emit('status', { key, state: 'open', viewerName: this.viewer.name });
    viewer.once('exit', (exit) => {
      this.alive.delete(viewer);
      if (this.current.get(key) === viewer) this.current.delete(key);
      if (exit.outcome === 'stopped' || exit.outcome === 'detached') return;
      // A viewer closed soon after it connected (TigerVNC exits 1 when its window is closed)
      // was used, not broken: only one that never reached its console failed to start.
      const outcome = exit.outcome === 'failed' && this.reachedConsole.has(viewer) ? 'closed' : exit.outcome;
      this.emit('status', {
        key,
        state: outcome === 'failed' ? 'failed' : 'closed',
        viewerName: this.viewer.name,
        exitCode: exit.code,
        message: describeViewerExit({ ...exit, outcome }, this.viewer.name),
      });
    });
  }
}
