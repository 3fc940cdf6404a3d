import type { VconsoleConfig } from '../../config/config.js';
import { VconsoleError, describeError } from '../../errors.js';
import { OPEN_WITHOUT_ASKING_MAX, TUI_LOAD_DEFER_MAX_MS, TUI_LOAD_SETTLE_MS, VIEWER_SHUTDOWN_GRACE_MS } from '../../limits.js';
import { SessionClosedError, type BoundAddress, type ConsoleSession } from '../../proxy/console-session.js';
import type { ConsoleTarget } from '../../targets/types.js';
import { DuplicateConsoleError, SessionRegistry } from '../../proxy/session-registry.js';
import { handleShutdownSignals } from '../../proxy/shutdown.js';
import { installHint, lookedFor } from '../../viewers/catalog.js';
import { selectViewer, viewerArgsNotice } from '../../viewers/choose.js';
import { systemViewerEnvironment } from '../../viewers/system-environment.js';
import { ViewerSupervisor } from '../../viewers/viewer-supervisor.js';
import { planViewers, viewerConsoleType } from '../../viewers/viewer-plan.js';
import { ViewerRouter } from '../../viewers/viewer-router.js';
import { DEFAULT_ESCAPE, parseEscapeKey } from '../../terminal/escape-key.js';
import { attachSerial, followSerial, reportSerialLine, shareSerial } from './serial.js';
import { mountTui, plainView, type OpenView } from './views.js';
import { loadBrowserViewers } from './viewers.js';
import { localAddressOf } from '../../net/host-port.js';
import { saveOpenAsWorkspace } from './workspace.js';
import { consecutivePorts, exposureWarning, type ListenFlags, type TargetFlags } from '../flags.js';
import { addOnce, portLine, type CommandIo } from '../proxy.js';
import { withShareDefault, type ShareFlags } from '../share-flags.js';
import { recordingFrom, withRecordSharing, type RecordFlags } from '../record-flags.js';
import { thumbnailModeFrom, withGridSharing, type GridFlags } from './grid-flags.js';
import { ThumbnailSampler } from './thumbnails.js';
import { sharingFrom } from '../sharing.js';
import { listenAddressFrom, resolveTargets, targetOptionsFrom } from '../target-options.js';
import type { SelectionFlags } from '../selector-flags.js';
import { selectTargets } from '../target-selection.js';
import { confirmOpenCount, type CountFlags } from './count.js';
import { followSelection } from '../follow-selection.js';
import { expandWorkspace } from '../../config/workspaces.js';
import type { ViewerFlags } from '../viewer-flags.js';
import { listingSources } from './vm-listing.js';
import { VmStateFollowers } from './vm-state.js';
import { firstClientSettled, settledOrAfter } from './first-viewers.js';
import { openBrowserPage, openBrowserPages, pageOutput } from './browser-only.js';
import { isBrowserOnly } from '../browser-only.js';

export interface OpenFlags extends TargetFlags, ViewerFlags, ListenFlags, ShareFlags, RecordFlags, SelectionFlags, GridFlags, CountFlags {
  /** With selectors: open VMs that start matching while open runs, mark those that stop. */
  follow?: boolean;
  /** false with --no-tui. */
  tui?: boolean;
  /** The key that brings the table back from an attached serial console. */
  escape?: string;
  /** A log file per serial console in this directory. */
  logDir?: string;
}

/**
 * `vconsole open`: a proxy per console and the chosen viewer launched for each, shown in the
 * TUI on a terminal, as plain lines otherwise. One failing target does not stop the others; a
 * console named twice gets one session and a notice. Resolves once every target has started
 * or failed (the process then runs until q or a signal ends it through io.exit); rejects
 * without a terminal when no target could be opened.
 */
export async function runOpenCommand(inputs: string[], flags: OpenFlags, config: VconsoleConfig, io: CommandIo): Promise<void> {
  ({ inputs, flags } = expandWorkspace(inputs, flags, config));
  const escapeKey = flags.escape === undefined ? DEFAULT_ESCAPE : parseEscapeKey(flags.escape);
  const thumbnailMode = thumbnailModeFrom(flags, process.env);
  const options = targetOptionsFrom(flags, config);
  const found = await selectTargets(inputs, flags, options, config, { follow: flags.follow });
  const targets = [...found.named, ...found.selected];
  // Declined at the terminal: nothing was opened, nothing is left to close.
  if (!(await confirmOpenCount(targets.length, flags, { stdin: process.stdin, stderr: process.stderr }))) return io.exit(0);
  // Consoles only a browser shows (Nova's RDP, WebMKS) open as the cloud's pages, without a port.
  const { named, selected, onlyPages } = await openBrowserPages(found, pageOutput(io, flags.tui));
  if (onlyPages && !flags.follow) return io.exit(0);
  const ports = consecutivePorts(flags.port, targets.length);
  const listen = listenAddressFrom(flags.listen, config);
  const sharing = await sharingFrom(withRecordSharing(withShareDefault(withGridSharing(flags), config.defaults.share)), listen, { viewerPasswords: false });
  const recording = await recordingFrom(flags);
  const system = systemViewerEnvironment();
  const viewerEnv = { ...process.env };
  const viewerFlag = flags.viewer ?? (system.env.VCONSOLE_VIEWER ? undefined : config.defaults.viewer);
  const { choice, detected } = await selectViewer({ viewer: viewerFlag, viewerArgs: flags.viewerArg }, system);
  const viewers = new ViewerRouter(planViewers(choice, detected ?? []), {
    // The environment as it is now: the TUI, loading while viewers start, lifts CI for a moment.
    native: (viewer, extraArgs) => new ViewerSupervisor(viewer, extraArgs, { env: viewerEnv }),
    browser: () =>
      loadBrowserViewers((key, url) => {
        const name = registry.get(key)?.name ?? `session ${key}`;
        // stdout carries JSON lines without the TUI; the URL is for the user's eyes, not a log.
        if (useTui) shown.view?.notice(`${name}: no browser could be opened; open ${url} in a browser on this machine`);
        else io.stdout.write(`${JSON.stringify({ target: name, url })}\n`);
      }),
  });

  const registry = new SessionRegistry();
  /** The sessions a selector found (not named): best-effort, a failure says the others are open. */
  const selectedIds = new Set<number>();
  /** Per serial session: stop following its line. */
  const unfollow = new Map<number, () => Promise<void>>();
  const assignedPort = new Map<number, number>();
  /** The port of the next target added from the TUI, with --port. */
  let nextPort: number | undefined;
  const useTui = flags.tui !== false && Boolean(process.stdout.isTTY && process.stdin.isTTY);
  // The grid's pictures: sampled only while the grid shows them.
  const thumbnails = useTui && thumbnailMode !== 'none' ? new ThumbnailSampler((id, thumbnail) => shown.view?.thumbnail(id, thumbnail)) : undefined;

  // The view exists only after the shutdown handler that closes it (the TUI's q triggers it).
  const shown: { view?: OpenView; stopFollowing?: () => void } = {};
  // Each session follows its VM's state; a VM back from a stop gets its session and viewer back.
  const vmStates = new VmStateFollowers({
    show: (id, state) => shown.view?.vmState(id, state),
    runsAgain: (session, action) => (action === 'start' ? start(session) : openViewer(session)),
  }, registry, viewers);
  const shutdown = handleShutdownSignals({
    close: async () => {
      shown.stopFollowing?.();
      vmStates.stopAll();
      thumbnails?.close();
      shown.view?.close();
      await Promise.all([registry.closeAll(), viewers.stopAll(VIEWER_SHUTDOWN_GRACE_MS), ...[...unfollow.values()].map((stop) => stop())]);
    },
    exit: (code) => {
      // A second Ctrl+C exits at once: viewers still in their stop grace die with us, not after.
      vmStates.stopAll();
      viewers.killAllNow();
      shown.view?.close();
      io.exit(code);
    },
  });

  const launchViewer = (session: ConsoleSession, at: BoundAddress) =>
    viewers.launch(session.id, { host: localAddressOf(at.address), port: at.port, title: session.name, consoleType: viewerConsoleType(session.source.consoleType) });
  const openViewer = async (session: ConsoleSession) => {
    const s = session.snapshot();
    if (s.state !== 'listening' || s.port === undefined) return;
    await launchViewer(session, { address: s.address ?? listen, port: s.port });
    // The first viewer's console opens while the viewer starts, not after it connects.
    session.dialAhead();
  };
  /** The viewers launched early by name, to say so when one of them is stopped again. */
  const viewerNames = new Map<number, string>();
  const stopEarlyViewer = async (id: number) => {
    await viewers.stop(id);
    const viewerName = viewerNames.get(id);
    // A console refused as a duplicate is gone from the view: its notice says it.
    if (viewerName && registry.get(id)) shown.view?.viewer({ key: id, state: 'closed', viewerName, message: `${viewerName} closed: the console did not open` });
  };
  const start = async (session: ConsoleSession) => {
    // A screen's viewer launches as soon as the port is bound and starts while the pre-flight
    // runs (a viewer takes longer to start than the pre-flight); a serial console's is attached
    // once it runs. A type the pre-flight has yet to settle (auto) is no screen yet: a VNC
    // viewer at a serial port would wait for a display that never comes, so its viewer waits.
    const earlyType = session.source.consoleType;
    let early: Promise<void> | undefined;
    const onBound =
      earlyType === 'serial' || session.source.consoleTypeTentative
        ? undefined
        : async (at: BoundAddress) => {
            early = launchViewer(session, at);
            await early;
            // Its console is dialled while both the viewer and the pre-flight run.
            session.dialAhead();
          };
    try {
      const bound = await session.start({ host: listen, port: assignedPort.get(session.id) ?? 0, onBound });
      if (!useTui) io.stdout.write(`${portLine(session.name, bound.address, bound.port, session.source.consoleType)}\n`);
      if (shown.view && !unfollow.has(session.id)) unfollow.set(session.id, followSerial(session, shown.view, flags.logDir));
      if (early && session.source.consoleType === earlyType) {
        await early;
      } else {
        if (early) await stopEarlyViewer(session.id);
        await openViewer(session);
      }
    } catch (err) {
      if (early) await stopEarlyViewer(session.id);
      // Closed while it started (x, q): a cancel, nothing to report.
      if (err instanceof SessionClosedError) return;
      // The same console as a session already open: the registry dropped this one.
      if (err instanceof DuplicateConsoleError) shown.view?.notice(describeError(err));
      // The session is in `error` with its message: the view shows it and `r` retries.
      // A selected VM that cannot open now leaves the others open; its row opens once it runs.
      else session.log('error', selectedIds.has(session.id) ? `${describeError(err)} (its row opens once it runs; the others stay open)` : describeError(err));
    }
  };
  // A shared console's drop shows on its row; the hub's log lines say it in the event log.
  const follow = (session: ConsoleSession) => {
    sharing.follow(session);
    reportSerialLine(session, () => shown.view);
    sharing.hubOf(session)?.on('state', (state) => shown.view?.upstream(session.id, { reconnecting: state === 'reconnecting' }));
    recording.recorderOf(session)?.on('bytes', (bytes) => shown.view?.recording(session.id, bytes));
    thumbnails?.track(session, sharing.hubOf(session));
  };
  const add = (text: string) => {
    const [target] = resolveTargets([text], options, config);
    if (isBrowserOnly(target)) return void openBrowserPage(target, pageOutput(io, flags.tui, () => shown.view));
    const session = registry.add(shareSerial(sharing.wrap(recording.wrap(target))));
    follow(session);
    if (nextPort !== undefined) assignedPort.set(session.id, nextPort++);
    void startThenFollowVm(session);
  };
  // The TUI loads, and the VMs' states are asked for, once the first viewers show their
  // consoles (resolved below) or after TUI_LOAD_DEFER_MAX_MS: neither holds the one thread, nor
  // the API server, while the first viewers start.
  let firstViewersShown = () => undefined as void;
  const afterFirstViewers = settledOrAfter(new Promise<void>((resolve) => (firstViewersShown = resolve)), TUI_LOAD_DEFER_MAX_MS);
  const startThenFollowVm = (session: ConsoleSession) => {
    // Whatever one console does ends at its own row: a rejection here would end every session.
    const started = start(session).catch((err: unknown) => session.log('error', describeError(err)));
    void started
      .then(() => afterFirstViewers)
      .then(() => {
        // Not a console refused as a duplicate of one already open.
        if (registry.get(session.id)) vmStates.follow(session);
      });
    return started;
  };

  const view = useTui
    ? await mountTui(registry, {
        onOpenViewer: (id) => withSession(registry, id, openViewer),
        onAttach: (id) =>
          withSession(registry, id, (session) =>
            attachSerial(session, { stdin: process.stdin, stdout: process.stdout, suspend: () => shown.view?.suspend() ?? Promise.resolve(), resume: () => shown.view?.resume() }, escapeKey).catch(
              (err: unknown) => shown.view?.notice(describeError(err)),
            ),
          ),
        onRetry: (id) => withSession(registry, id, start),
        onScreenshot: async (id) => {
          const session = registry.get(id);
          if (!session) throw new VconsoleError('that session is gone');
          // The PNG encoder loads on the first screenshot, not before the first viewer starts.
          const { saveSessionScreenshot } = await import('./screenshot.js');
          const file = await saveSessionScreenshot(session.snapshot(), { password: sharing.viewerPassword, exclusive: session.source.exclusive });
          return `${session.name}: screenshot saved to ${file}`;
        },
        onClose: async (id) => {
          void unfollow.get(id)?.();
          unfollow.delete(id);
          thumbnails?.untrack(id);
          await viewers.stop(id);
          await registry.remove(id);
        },
        onAdd: (text) => {
          try {
            add(text);
          } catch (err) {
            shown.view?.notice(describeError(err));
          }
        },
        listVms: () => listingSources(options, config),
        onSaveWorkspace: (name) => saveOpenAsWorkspace(name, registry.all(), flags, config),
        onQuit: () => shutdown.trigger(),
        onThumbnailView: (tiles) => thumbnails?.setView(tiles),
      }, { detachKey: escapeKey.label, grid: Boolean(flags.grid), thumbnails: thumbnailMode }, afterFirstViewers)
    : plainView(registry, io, Boolean(flags.verbose));
  shown.view = view;

  viewers.on('status', (event) => {
    viewerNames.set(event.key, event.viewerName);
    view.viewer(event);
  });
  viewers.on('notice', (text) => view.notice(text));
  registry.on('change', (snapshot) => {
    if (snapshot.clients > 0) viewers.noteConsoleClient(snapshot.id);
  });
  if (choice.kind === 'not-found') view.noViewer(lookedFor(system.platform), installHint(system.platform));
  const warning = exposureWarning(listen);
  if (warning) view.notice(warning);
  const argsNotice = viewerArgsNotice(choice, flags.viewerArg);
  if (argsNotice) view.notice(argsNotice);

  const opened = (list: ConsoleTarget[]) => addOnce(registry, list.map((target) => shareSerial(sharing.wrap(recording.wrap(target)))), (text) => view.notice(text));
  const namedSessions = opened(named);
  const selectedSessions = opened(selected);
  selectedSessions.forEach((session) => selectedIds.add(session.id));
  const sessions = [...namedSessions, ...selectedSessions];
  sessions.forEach(follow);
  sessions.forEach((session, i) => {
    if (ports[i]) assignedPort.set(session.id, ports[i]);
  });
  if (flags.port !== undefined) nextPort = flags.port + sessions.length;
  await Promise.all(sessions.map(startThenFollowVm));
  const launchedViewer = (s: ConsoleSession) => s.snapshot().state === 'listening' && choice.kind !== 'none' && viewers.shows(viewerConsoleType(s.source.consoleType));
  void Promise.all(sessions.filter(launchedViewer).map((s) => firstClientSettled(s, TUI_LOAD_SETTLE_MS))).then(firstViewersShown);
  const kept = sessions.filter((s) => registry.get(s.id));
  if (!useTui && kept.length > 0 && kept.every((s) => s.snapshot().state === 'error')) {
    shutdown.dispose();
    vmStates.stopAll();
    await registry.closeAll();
    // Each target's error is on stderr already, one line each.
    throw new VconsoleError(sessions.length === 1 ? 'the target could not be opened' : 'no target could be opened', {
      hint: 'see the error above',
    });
  }
  if (choice.kind === 'none') view.notice('no viewer launched (--viewer none): point any VNC viewer at the addresses shown');
  if (flags.follow) {
    shown.stopFollowing = followSelection({
      flags, options, config, registry, sessions,
      open: (target) => {
        try {
          add(target.input);
        } catch (err) {
          view.notice(describeError(err));
        }
      },
      mark: (id, matching) => view.match(id, matching),
      notice: (text) => view.notice(text),
      maxAtOnce: flags.yes ? undefined : flags.max ?? OPEN_WITHOUT_ASKING_MAX,
    });
  }
}

async function withSession(registry: SessionRegistry, id: number, action: (s: ConsoleSession) => Promise<void>): Promise<void> {
  const session = registry.get(id);
  if (session) await action(session);
}

