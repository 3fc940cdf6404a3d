import { EventEmitter } from 'node:events';
import type { ViewerCandidate, ViewerConsoleType, ViewerTarget } from './types.js';
import { viewerConsoleType, type ViewerPlan, type ViewerRoute } from './viewer-plan.js';
import type { ViewerStatusEvent } from './viewer-supervisor.js';

/**
 * What launches viewers for `open`, one per key (a session id) at most: the supervisor of an
 * installed viewer's processes, or the browser viewer's tabs.
 */
export interface ViewerLauncher {
  launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void>;
  stop(key: number, graceMs?: number): Promise<void>;
  stopAll(graceMs?: number): Promise<void>;
  killAllNow(): void;
  noteConsoleClient(key: number): void;
  on(event: 'status', listener: (event: ViewerStatusEvent) => void): unknown;
}

/** Makes the launchers a plan names, when first needed (the browser's HTTP server starts only then). */
interface LauncherFactory {
  native(viewer: ViewerCandidate, extraArgs: string[]): ViewerLauncher;
  browser(): Promise<ViewerLauncher>;
}

/**
 * Sends each console to the viewer its plan names for its kind (src/console-kinds), so one
 * `open` can show screens in TigerVNC and SPICE consoles in remote-viewer. Emits every
 * launcher's `status`, and `notice` once per kind the first time a console of that kind is
 * launched and the plan has something to say about it.
 */
export class ViewerRouter extends EventEmitter<{ status: [ViewerStatusEvent]; notice: [string] }> {
  private readonly launchers = new Map<string, Promise<ViewerLauncher>>();
  /** The launcher each key's viewer came from. */
  private readonly launcherOfKey = new Map<number, ViewerLauncher>();
  private readonly noticed = new Set<ViewerConsoleType>();
  /** The launchers made so far (those still loading have launched nothing yet). */
  private readonly ready = new Set<ViewerLauncher>();

  constructor(
    private readonly plan: ViewerPlan,
    private readonly factory: LauncherFactory,
  ) {
    super();
  }

  /** Whether a console of `type` gets a viewer at all. */
  shows(type: ViewerConsoleType): boolean {
    return this.plan.routes[type] !== undefined;
  }

  /**
   * Launches the viewer for `key`'s console; a viewer it had from another launcher is stopped
   * first. Does nothing (but say why, once) for a kind no viewer shows; rejects for a type no
   * kind has.
   */
  async launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void> {
    const type = viewerConsoleType(target.consoleType);
    this.noticeOnce(type);
    const route = this.plan.routes[type];
    if (!route) return;
    const launcher = await this.launcherFor(route);
    const previous = this.launcherOfKey.get(key);
    if (previous && previous !== launcher) await previous.stop(key);
    this.launcherOfKey.set(key, launcher);
    await launcher.launch(key, target);
  }

  async stop(key: number, graceMs?: number): Promise<void> {
    const launcher = this.launcherOfKey.get(key);
    this.launcherOfKey.delete(key);
    await launcher?.stop(key, graceMs);
  }

  async stopAll(graceMs?: number): Promise<void> {
    await Promise.all([...this.ready].map((l) => l.stopAll(graceMs)));
  }

  killAllNow(): void {
    for (const launcher of this.ready) launcher.killAllNow();
  }

  noteConsoleClient(key: number): void {
    this.launcherOfKey.get(key)?.noteConsoleClient(key);
  }

  private noticeOnce(type: ViewerConsoleType): void {
    const text = this.plan.notices[type];
    if (!text || this.noticed.has(type)) return;
    this.noticed.add(type);
    this.emit('notice', text);
  }

  private launcherFor(route: ViewerRoute): Promise<ViewerLauncher> {
    const id = route.kind === 'browser' ? 'browser' : `native:${route.viewer.path}`;
    let launcher = this.launchers.get(id);
    if (!launcher) {
      launcher = (
        route.kind === 'browser' ? this.factory.browser() : Promise.resolve(this.factory.native(route.viewer, route.extraArgs))
      ).then((made) => {
        made.on('status', (event) => this.emit('status', event));
        this.ready.add(made);
        return made;
      });
      // A launcher that failed to load is tried again next time.
      launcher.catch(() => this.launchers.delete(id));
      this.launchers.set(id, launcher);
    }
    return launcher;
  }
}
