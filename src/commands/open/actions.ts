/**
 * What the TUI's keys do to one run of `open` (Enter, o, r, x, s, a, S, q, the grid): each action
 * a method, acting through the run that owns the sessions, the viewers and the follow-ups. It
 * holds no state of its own. tuiActions() binds them to the TUI's ConsoleActions, in one place.
 */
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError, describeError } from '../../errors.js';
import type { ConsoleSession } from '../../proxy/console-session.js';
import type { SessionRegistry } from '../../proxy/session-registry.js';
import type { ConsoleActions } from '../../tui/components/app.js';
import type { VmListingSource } from '../../tui/state/picker-model.js';
import type { ThumbnailView } from '../../tui/thumbnails/thumbnail.js';
import type { ViewerRouter } from '../../viewers/viewer-router.js';
import type { SessionFollowUps } from './follow-ups.js';
import { attachSerial } from './serial.js';
import type { OpenSettings } from './settings.js';
import { listingSources } from './vm-listing.js';
import type { OpenView } from './views.js';
import { saveOpenAsWorkspace } from './workspace.js';

/** What the actions need of the run they act on (an OpenRun). */
export interface ActionHost {
  readonly settings: OpenSettings;
  readonly registry: SessionRegistry;
  readonly viewers: { readonly router: Pick<ViewerRouter, 'stop'> };
  readonly followUps: Pick<SessionFollowUps, 'untrack' | 'showPictures'>;
  readonly view: OpenView | undefined;
  /** The sessions the selectors found: `S` saves them as the selectors. */
  readonly selectedIds: ReadonlySet<number>;
  startSession(session: ConsoleSession): Promise<void>;
  openViewer(session: ConsoleSession): Promise<void>;
  addTarget(text: string): void;
  /** Shuts the run down as a signal would. */
  quit(): void;
}

export class OpenActions {
  constructor(private readonly run: ActionHost) {}

  /** Enter or `o` on a screen's row: its viewer again. */
  async reopenViewer(id: number): Promise<void> {
    await this.withSession(id, (session) => this.run.openViewer(session));
  }

  /** Enter on a serial row: this terminal joined to the console until the escape key. */
  async attach(id: number): Promise<void> {
    await this.withSession(id, (session) => {
      const terminal = {
        stdin: process.stdin,
        stdout: process.stdout,
        suspend: () => this.run.view?.suspend() ?? Promise.resolve(),
        resume: () => this.run.view?.resume(),
      };
      return attachSerial(session, terminal, this.run.settings.escapeKey).catch((err: unknown) =>
        this.run.view?.show({ type: 'notice', text: describeError(err) }),
      );
    });
  }

  /** `r`: the session starts again. */
  async retry(id: number): Promise<void> {
    await this.withSession(id, (session) => this.run.startSession(session));
  }

  /** `s` on a screen's row: a PNG of it; resolves with what to tell the user. */
  async screenshot(id: number): Promise<string> {
    const session = this.run.registry.get(id);
    if (!session) throw new VconsoleError('that session is gone');
    const kind = consoleKind(session.source.consoleType);
    // vconsole reads RFB only: a SPICE screen is shown by its viewer, never decoded here.
    if (kind && kind.reads !== 'rfb')
      throw new VconsoleError(`${session.name}: s pictures VNC screens; a ${kind.label} console is not one`, {
        hint: 'take the picture in its viewer (Enter opens it)',
      });
    // The PNG encoder loads on the first screenshot, not before the first viewer starts.
    const { saveSessionScreenshot } = await import('./screenshot.js');
    const { sharing } = this.run.settings;
    const file = await saveSessionScreenshot(session.snapshot(), {
      password: sharing.clientPassword,
      // Beyond loopback the port speaks TLS: the picture is the hub's own.
      shared: sharing.tls ? sharing.hubOf(session)?.framebuffer : undefined,
      exclusive: session.source.exclusive,
      shareHint: this.run.settings.shareHint,
    });
    return `${session.name}: screenshot saved to ${file}`;
  }

  /** `x`: the session, its viewer and its follow-ups end; the others go on. */
  async close(id: number): Promise<void> {
    this.run.followUps.untrack(id);
    await this.run.viewers.router.stop(id);
    await this.run.registry.remove(id);
  }

  /** `a`: the listings its picker shows, asked anew each time. */
  listVms(): readonly VmListingSource[] {
    return listingSources(this.run.settings.options, this.run.settings.config);
  }

  /** `S`: what is open now saved as a workspace; resolves with what to tell the user. */
  saveWorkspace(name: string): Promise<string> {
    return saveOpenAsWorkspace(name, this.run.registry.all(), this.run.settings.flags, this.run.settings.config, this.run.selectedIds);
  }

  /** The grid's tiles on screen changed. */
  showPictures(tiles: ThumbnailView | undefined): void {
    this.run.followUps.showPictures(tiles);
  }

  private async withSession(id: number, action: (session: ConsoleSession) => Promise<void>): Promise<void> {
    const session = this.run.registry.get(id);
    if (session) await action(session);
  }
}

/** The TUI's ConsoleActions, each bound to its action on the run. */
export function tuiActions(run: ActionHost): ConsoleActions {
  const actions = new OpenActions(run);
  return {
    onOpenViewer: (id) => actions.reopenViewer(id),
    onAttach: (id) => actions.attach(id),
    onRetry: (id) => actions.retry(id),
    onScreenshot: (id) => actions.screenshot(id),
    onClose: (id) => actions.close(id),
    onAdd: (text) => run.addTarget(text),
    listVms: () => actions.listVms(),
    onSaveWorkspace: (name) => actions.saveWorkspace(name),
    onQuit: () => run.quit(),
    onThumbnailView: (tiles) => actions.showPictures(tiles),
  };
}
