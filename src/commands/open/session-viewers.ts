/**
 * The viewers of one `open` run's sessions: the router that launches them (an installed viewer,
 * the browser page, or where no window can show the ssh -L line of each console instead), what
 * the view is told of them at the start, and each session's viewer launched at its port, stopped
 * again when its console does not open, or launched again. One OpenRun (run.ts) owns one.
 */
import { localAddressOf } from '../../net/host-port.js';
import type { BoundAddress, ConsoleSession, SessionRegistry } from '../../proxy/index.js';
import { installHint, lookedFor } from '../../viewers/catalog.js';
import { viewerArgsNotice } from '../../viewers/choose.js';
import { planViewers, viewerConsoleType } from '../../viewers/viewer-plan.js';
import { ViewerRouter } from '../../viewers/viewer-router.js';
import { ViewerSupervisor } from '../../viewers/viewer-supervisor.js';
import type { CommandIo } from '../command-io.js';
import { NoDisplayReport, NoDisplayViewers } from './no-display.js';
import type { OpenSettings } from './settings.js';
import { loadBrowserViewers } from './viewers.js';
import { viewerEvent, type OpenView } from './views.js';

export class SessionViewers {
  readonly router: ViewerRouter;
  /** What is said instead of starting viewers where no window can show; undefined where one can. */
  private readonly noDisplay: NoDisplayReport | undefined;
  /** The viewers launched early by name, to say so when one of them is stopped again. */
  private readonly viewerNames = new Map<number, string>();

  constructor(
    private readonly settings: OpenSettings,
    private readonly io: CommandIo,
    private readonly registry: SessionRegistry,
    /** The run's view; undefined until it is mounted. */
    private readonly view: () => OpenView | undefined,
  ) {
    const { choice, detected } = settings.viewer;
    const { display } = settings;
    // No window can show here: viewers are stood in for by the ssh -L line of each console.
    const noDisplay = display.shows
      ? undefined
      : new NoDisplayReport(display, {
          view,
          useTui: settings.useTui,
          stdout: io.stdout,
          nameOf: (key) => this.nameOf(key),
        });
    this.noDisplay = noDisplay;
    this.router = new ViewerRouter(planViewers(choice, detected ?? []), {
      native: (viewer, extraArgs) =>
        noDisplay
          ? new NoDisplayViewers(viewer.name, (key, target) => noDisplay.console(key, target))
          : new ViewerSupervisor(viewer, extraArgs, { env: settings.viewerEnv }),
      browser: () =>
        loadBrowserViewers((key, url) => this.pageUnopened(key, url), {
          display: display.shows,
          unshown: (key, url) => noDisplay?.page(key, url),
        }),
    });
  }

  /** The viewers' news go to the mounted view from now on, after what is said of them at the start. */
  showIn(view: OpenView): void {
    const { viewer, flags } = this.settings;
    this.router.on('status', (event) => {
      this.viewerNames.set(event.key, event.viewerName);
      view.show(viewerEvent(event));
    });
    this.router.on('notice', (text) => view.show({ type: 'notice', text }));
    this.registry.on('change', (snapshot) => {
      if (snapshot.clients > 0) this.router.noteConsoleClient(snapshot.id);
    });
    // Where no window shows, installing a viewer here would not help: the ssh -L lines do.
    if (this.noDisplay && viewer.choice.kind !== 'none') view.show({ type: 'notice', text: this.noDisplay.notice() });
    else if (viewer.choice.kind === 'not-found')
      view.show({ type: 'no-viewer', notice: { lookedFor: lookedFor(viewer.platform), install: installHint(viewer.platform) } });
    const argsNotice = viewerArgsNotice(viewer.choice, flags.viewerArg);
    if (argsNotice) view.show({ type: 'notice', text: argsNotice });
  }

  /** Whether a viewer window was launched for the session: it listens, and a viewer of its kind shows here. */
  launched(session: ConsoleSession): boolean {
    return (
      session.snapshot().state === 'listening' &&
      this.settings.viewer.choice.kind !== 'none' &&
      this.settings.display.shows &&
      this.router.shows(viewerConsoleType(session.source.facts.consoleType))
    );
  }

  /** Launches the session's viewer at its port, if it listens (Enter, `o`, a VM back from a stop). */
  async open(session: ConsoleSession): Promise<void> {
    const s = session.snapshot();
    if (s.state !== 'listening' || s.port === undefined) return;
    await this.launch(session, { address: s.address ?? this.settings.plan.listen, port: s.port });
  }

  /**
   * Whether a viewer's console is dialled before it connects. Not with a viewer password: the hub
   * serves each client by its address (the back-off, plain VNC authentication from this machine
   * only), which a stream dialled ahead does not know; and the hub holds the console open anyway.
   */
  private get dialsAhead(): boolean {
    return !this.noDisplay && this.settings.plan.sharing.clientPassword === undefined;
  }

  /**
   * Launches the session's viewer at `at`; its console is then dialled while the viewer starts
   * (and while the pre-flight runs, for one launched as soon as the port is bound), not after it
   * connects.
   */
  async launch(session: ConsoleSession, at: BoundAddress): Promise<void> {
    await this.router.launch(session.id, {
      host: localAddressOf(at.address),
      port: at.port,
      title: session.name,
      consoleType: viewerConsoleType(session.source.facts.consoleType),
    });
    if (this.dialsAhead) session.dialAhead();
  }

  /** Stops a viewer launched before its console opened, and says why on its row. */
  async stopEarly(id: number, why = 'the console did not open'): Promise<void> {
    await this.router.stop(id);
    const viewerName = this.viewerNames.get(id);
    // A console refused as a duplicate is gone from the view: its notice says it.
    if (viewerName && this.registry.get(id))
      this.view()?.show(viewerEvent({ key: id, state: 'closed', viewerName, message: `${viewerName} closed: ${why}` }));
  }

  private nameOf(key: number): string {
    return this.registry.get(key)?.name ?? `session ${key}`;
  }

  /** The browser could not show a page: its URL holds the page's secret, for the user's eyes, never a log. */
  private pageUnopened(key: number, url: string): void {
    const name = this.nameOf(key);
    // stdout carries JSON lines without the TUI.
    if (this.settings.useTui)
      this.view()?.show({ type: 'notice', text: `${name}: no browser could be opened; open ${url} in a browser on this machine` });
    else this.io.stdout.write(`${JSON.stringify({ target: name, url })}\n`);
  }
}
