/**
 * One `vconsole open`, from its first session to its shutdown: the one object that owns the
 * session registry, the viewers (session-viewers.ts), the ports and the follow-ups
 * (follow-ups.ts), and does what the TUI's keys request (actions.ts). Its state is its fields; q,
 * Ctrl+C and SIGTERM all end in close(), which closes everything the run started.
 */
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError, describeError } from '../../errors.js';
import { OPEN_WITHOUT_ASKING_MAX, TUI_LOAD_DEFER_MAX_MS, TUI_LOAD_SETTLE_MS, VIEWER_SHUTDOWN_GRACE_MS } from '../../limits.js';
import {
  SessionClosedError,
  type BoundAddress,
  type ConsoleSession,
  DuplicateConsoleError,
  SessionRegistry,
  handleShutdownSignals,
} from '../../proxy/index.js';
import type { ConsoleTarget } from '../../targets/index.js';
import type { ViewerProcess } from '../../viewers/index.js';
import { isBrowserOnly } from '../browser-only.js';
import { addOnce, portLine, type CommandIo } from '../command-io.js';
import { certificateNotice, exposureNotice, passwordNotice } from '../sharing.js';
import { resolveTargets } from '../target-options.js';
import { openHandlers, tuiFeeds, type ActionHost } from './actions.js';
import { openBrowserPage, pageOutput } from './browser-only.js';
import { firstClientSettled, settledOrAfter } from './first-viewers.js';
import { PlaceTeller } from './places.js';
import { SessionFollowUps } from './follow-ups.js';
import { SessionViewers } from './session-viewers.js';
import type { OpenSettings } from './settings.js';
import { mountTui, plainView, type OpenView } from './views.js';
import { recordingLines } from '../record-flags.js';

export class OpenRun implements ActionHost {
  readonly registry = new SessionRegistry();
  readonly viewers: SessionViewers;
  readonly followUps: SessionFollowUps;
  readonly shutdown: ReturnType<typeof handleShutdownSignals>;
  /** The viewers of consoles opened from a connection file (no session): stopped with the run. */
  readonly fileViewers: ViewerProcess[] = [];
  /** The sessions the selectors found (at the start and by --follow): `S` saves them as the selectors. */
  readonly selectedIds = new Set<number>();
  /** The port --port gave each session; one without gets any free port. */
  private readonly assignedPort = new Map<number, number>();
  /** The port of the next target added from the TUI or by --follow, with --port. */
  private nextPort: number | undefined;
  /** The TUI or plain lines: mounted only after the shutdown handler that closes it (the TUI's q triggers it). */
  private mounted: OpenView | undefined;
  /**
   * The TUI loads, and the VMs' states are asked for, once the first viewers show their consoles
   * or after TUI_LOAD_DEFER_MAX_MS: neither holds the one thread, nor the API server, while the
   * first viewers start.
   */
  private readonly afterFirstViewers: Promise<void>;
  private firstViewersShown: () => void = () => undefined;
  /** Where the providers in use point, for the TUI's header. */
  private readonly places: PlaceTeller;

  constructor(
    readonly settings: OpenSettings,
    private readonly io: CommandIo,
  ) {
    this.viewers = new SessionViewers(settings, io, this.registry, () => this.view);
    this.followUps = new SessionFollowUps(
      {
        view: () => this.view,
        sharing: settings.plan.sharing,
        shareHint: settings.plan.shareHint,
        recording: settings.plan.recording,
        logDir: settings.flags.logDir,
        tiles: settings.useTui ? (settings.thumbnailMode === 'none' ? 'text' : 'pictures') : 'none',
        runsAgain: (session, action) => (action === 'start' ? this.startSession(session) : this.openViewer(session)),
      },
      this.registry,
      this.viewers.router,
    );
    this.places = new PlaceTeller(settings.options, (places) => this.view?.show({ type: 'places', places }), undefined, settings.via);
    this.shutdown = handleShutdownSignals({ close: () => this.close(), exit: (code) => this.exitNow(code) });
    this.afterFirstViewers = settledOrAfter(new Promise<void>((resolve) => (this.firstViewersShown = resolve)), TUI_LOAD_DEFER_MAX_MS);
  }

  /** The TUI or plain lines; undefined until open() mounts it. */
  get view(): OpenView | undefined {
    return this.mounted;
  }

  /**
   * Mounts the view, then opens a session per console named and selected: each starts, gets its
   * viewer and its follow-ups. Resolves once every target has started or failed (the process then
   * runs until q or a signal ends it through io.exit); rejects without a terminal when no
   * target could be opened.
   */
  async open(named: ConsoleTarget[], selected: ConsoleTarget[]): Promise<void> {
    const { flags, ports, useTui, viewer } = this.settings;
    // Beyond loopback: what protects the port, its password (shown once) and its certificate,
    // on stderr (before the TUI: its screen comes back once the TUI ends).
    const { listen, sharing } = this.settings.plan;
    for (const line of [exposureNotice(listen, sharing), passwordNotice(sharing), certificateNotice(sharing)])
      if (line) this.io.stderr.write(`${line}\n`);
    const view = await this.mountView();
    this.mounted = view;
    this.viewers.showIn(view);

    // The header's place (kube context, cloud) reads the configuration the pre-flight reads too: after the first viewers launch, not before.
    const providers = [...named, ...selected].map((target) => target.provider);
    if (useTui) void this.afterFirstViewers.then(() => this.places.note(providers));
    const namedSessions = this.admit(named);
    const selectedSessions = this.admit(selected);
    selectedSessions.forEach((session) => this.selectedIds.add(session.id));
    const sessions = [...namedSessions, ...selectedSessions];
    sessions.forEach((session) => this.followUps.track(session));
    sessions.forEach((session, i) => {
      if (ports[i]) this.assignedPort.set(session.id, ports[i]);
    });
    if (flags.port !== undefined) this.nextPort = flags.port + sessions.length;
    await Promise.all(sessions.map((session) => this.startThenFollowVm(session)));
    void Promise.all(sessions.filter((s) => this.viewers.launched(s)).map((s) => firstClientSettled(s, TUI_LOAD_SETTLE_MS))).then(
      this.firstViewersShown,
    );
    const kept = sessions.filter((s) => this.registry.get(s.id));
    // With --follow nothing has ended: a VM that matches later is opened (and a failed one's row stays).
    if (!useTui && !flags.follow && kept.length > 0 && kept.every((s) => s.snapshot().state === 'error')) {
      this.shutdown.dispose();
      this.followUps.stop();
      await this.registry.closeAll();
      // Each target's error is on stderr already, one line each.
      throw new VconsoleError(sessions.length === 1 ? 'the target could not be opened' : 'no target could be opened', {
        hint: 'see the error above',
      });
    }
    if (viewer.choice.kind === 'none')
      view.show({ type: 'notice', text: 'no viewer launched (--viewer none): point any VNC viewer at the addresses shown' });
    // ...and in the TUI's notice line, last, so that no notice of the start takes it.
    const exposed = [passwordNotice(sharing), certificateNotice(sharing)].filter((line) => line);
    if (useTui && exposed.length > 0) view.show({ type: 'notice', text: exposed.join('; ') });
    if (flags.follow) this.followSelection(sessions);
  }

  /** `q` in the TUI: the same shutdown as a signal's. */
  quit(): void {
    this.shutdown.trigger();
  }

  /**
   * One more target, typed at the TUI's `a` or found by --follow: its session starts like the
   * first ones (the next --port port, if any). A target that cannot be read is a notice.
   */
  addTarget(text: string, { selected = false } = {}): void {
    try {
      const [target] = resolveTargets([text], this.settings.options, this.settings.config);
      if (isBrowserOnly(target))
        return void openBrowserPage(
          target,
          pageOutput(this.io, this.settings.flags.tui, () => this.noticeBoard()),
        );
      if (this.settings.useTui) this.places.note([target.provider]);
      for (const session of this.admit([target])) {
        if (selected) this.selectedIds.add(session.id);
        this.followUps.track(session);
        if (this.nextPort !== undefined) this.assignedPort.set(session.id, this.nextPort++);
        void this.startThenFollowVm(session);
      }
    } catch (err) {
      this.view?.show({ type: 'notice', text: describeError(err) });
    }
  }

  /** The TUI's notice line for browser pages, once the TUI shows. */
  private noticeBoard(): { notice(text: string): void } | undefined {
    const view = this.view;
    return view && { notice: (text) => view.show({ type: 'notice', text }) };
  }

  /**
   * The one door from targets to sessions (named, selected, added at `a`, found by --follow): a
   * console named twice is a notice. A console no local port can carry (its kind's
   * `carriage: 'browser'`, Nova's rdp-html5 and webmks) never reaches it: open.ts and addTarget
   * hand those to the browser (browser-only.ts) first.
   */
  private admit(targets: readonly ConsoleTarget[]): ConsoleSession[] {
    return addOnce(
      this.registry,
      targets.map((target) => this.settings.plan.wrap(target)),
      (text) => this.view?.show({ type: 'notice', text }),
    );
  }

  /** Starts the session; once the first viewers show their consoles, its VM state is followed. */
  private startThenFollowVm(session: ConsoleSession): Promise<void> {
    // Whatever one console does ends at its own row: a rejection here would end every session.
    const started = this.startSession(session).catch((err: unknown) => session.log('error', describeError(err)));
    void started
      .then(() => this.afterFirstViewers)
      .then(() => {
        // Not a console refused as a duplicate of one already open.
        if (this.registry.get(session.id)) this.followUps.followVm(session);
      });
    return started;
  }

  /** Starts (or, from `r` and a VM back from a stop, restarts) a session and launches its viewer. */
  async startSession(session: ConsoleSession): Promise<void> {
    // A screen's viewer launches as soon as the port is bound and starts while the pre-flight
    // runs (a viewer takes longer to start than the pre-flight); a serial console's is attached
    // once it runs. A type the pre-flight has yet to settle (auto) is no screen yet, unless the
    // provider's guess holds for nearly every VM (KubeVirt's VNC): a viewer launched for a guess
    // the pre-flight then changes gets no console (the session closes it) and is stopped before
    // the session serves the type found.
    let early: Promise<void> | undefined;
    let earlyStopped = false;
    const { consoleTypeTentative, consoleTypeGuessHolds } = session.source.facts;
    const onBound =
      consoleKind(session.source.facts.consoleType)?.screen === false || (consoleTypeTentative && !consoleTypeGuessHolds)
        ? undefined
        : (at: BoundAddress) => {
            early = this.viewers.launch(session, at);
            return early;
          };
    const onTypeChanged = async (found: string | undefined) => {
      if (!early) return;
      earlyStopped = true;
      await this.viewers.stopEarly(session.id, `the pre-flight found a ${found ?? 'different'} console`);
    };
    try {
      const listen = { host: this.settings.plan.listen, port: this.assignedPort.get(session.id) ?? 0, onBound, onTypeChanged };
      const bound = await session.start(listen);
      if (!this.settings.useTui)
        this.io.stdout.write(`${portLine(session.name, bound.address, bound.port, session.source.facts.consoleType)}\n`);
      this.followUps.listening(session);
      if (early && !earlyStopped) await early;
      else await this.openViewer(session);
    } catch (err) {
      if (early && !earlyStopped) await this.viewers.stopEarly(session.id);
      // Closed while it started (x, q): a cancel, nothing to report.
      if (err instanceof SessionClosedError) return;
      // The same console as a session already open: the registry dropped this one.
      if (err instanceof DuplicateConsoleError) this.view?.show({ type: 'notice', text: describeError(err) });
      // The session is in `error` with its message: the view shows it and `r` retries.
      // A selected VM that cannot open now leaves the others open; its row opens once it runs.
      else
        session.log(
          'error',
          this.selectedIds.has(session.id)
            ? `${describeError(err)} (its row opens once it runs; the others stay open)`
            : describeError(err),
        );
    }
  }

  /** Launches the session's viewer at its port, if it listens (Enter, `o`, a VM back from a stop). */
  openViewer(session: ConsoleSession): Promise<void> {
    return this.viewers.open(session);
  }

  /** --follow: VMs that start matching are opened as if typed at `a`; rows of those that stop are marked. */
  private followSelection(sessions: ConsoleSession[]): void {
    const { flags, options, config } = this.settings;
    this.followUps.followSelection({
      flags,
      options,
      config,
      registry: this.registry,
      sessions,
      open: (target) => this.addTarget(target.input, { selected: true }),
      mark: (id, matching) => this.view?.show({ type: 'match', sessionId: id, matching }),
      notice: (text) => this.view?.show({ type: 'notice', text }),
      maxAtOnce: flags.yes ? undefined : (flags.max ?? OPEN_WITHOUT_ASKING_MAX),
    });
  }

  private async mountView(): Promise<OpenView> {
    const { flags, escapeKey, thumbnailMode, useTui } = this.settings;
    if (!useTui) return plainView(this.registry, this.io, Boolean(flags.verbose));
    return mountTui(
      this.registry,
      openHandlers(this),
      { detachKey: escapeKey.label, grid: Boolean(flags.grid), thumbnails: thumbnailMode, ...tuiFeeds(this) },
      this.afterFirstViewers,
    );
  }

  /** Everything the run started, closed in one place: q, Ctrl+C, SIGTERM and SIGHUP end here. */
  private async close(): Promise<void> {
    this.followUps.stop();
    this.view?.close();
    await Promise.all([
      this.registry.closeAll(),
      this.viewers.router.stopAll(VIEWER_SHUTDOWN_GRACE_MS),
      ...this.fileViewers.map((viewer) => viewer.stop(VIEWER_SHUTDOWN_GRACE_MS)),
      this.followUps.closeSerialLogs(),
    ]);
    // The TUI has given the screen back: what --record wrote is said where it stays.
    for (const line of recordingLines(this.settings.plan.recording)) this.io.stderr.write(`${line}\n`);
  }

  /** A second Ctrl+C exits at once: viewers still in their stop grace die with us, not after. */
  private exitNow(code: number): void {
    this.followUps.stopVmStates();
    this.viewers.router.killAllNow();
    for (const viewer of this.fileViewers) viewer.killNow();
    this.view?.close();
    this.io.exit(code);
  }
}
