/**
 * What the TUI's requests do to one run of `open` (Enter, o, r, x, s, a, S, p, K, P, b, q, the grid): one
 * handler per request of the TUI's vocabulary (tui/state/requests.ts), acting through the run
 * that owns the sessions, the viewers and the follow-ups. A request without a handler here is a
 * type error. It holds no state of its own.
 */
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError, describeError } from '../../errors.js';
import type { ConsoleSession, SessionRegistry } from '../../proxy/index.js';
import { POWER_ACTIONS } from '../../targets/index.js';
import type { ConsoleEventOf, ConsoleHandlers, RenderConsoleOptions } from '../../tui/index.js';
import { ConsoleInputs } from './console-input.js';
import { powerSession } from './power-menu.js';
import type { ViewerRouter } from '../../viewers/index.js';
import type { SessionFollowUps } from './follow-ups.js';
import { attachSerial } from './serial.js';
import type { OpenSettings } from './settings.js';
import { listingSources } from './vm-listing.js';
import type { OpenView } from './views.js';
import { saveOpenAsWorkspace } from './workspace.js';

/** What the handlers need of the run they act on (an OpenRun). */
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

/** The TUI's requests, each answered on the run. */
export function openHandlers(run: ActionHost): ConsoleHandlers {
  const viewOnly = run.settings.flags.viewOnly === true;
  const inputs = new ConsoleInputs({ registry: run.registry, viewOnly });
  const powerHost = { registry: run.registry, viewOnly, show: (event: ConsoleEventOf<'vm-state'>) => run.view?.show(event) };
  const withSession = async (id: number, act: (session: ConsoleSession) => Promise<void>): Promise<void> => {
    const session = run.registry.get(id);
    if (session) await act(session);
  };
  return {
    // Enter or `o` on a screen's row: its viewer again.
    open: ({ sessionId }) => withSession(sessionId, (session) => run.openViewer(session)),
    // Enter on a serial row: this terminal joined to the console until the escape key.
    attach: ({ sessionId }) =>
      withSession(sessionId, (session) => {
        const terminal = {
          stdin: process.stdin,
          stdout: process.stdout,
          suspend: () => run.view?.suspend() ?? Promise.resolve(),
          resume: () => run.view?.resume(),
        };
        return attachSerial(session, terminal, run.settings.escapeKey).catch((err: unknown) =>
          run.view?.show({ type: 'notice', text: describeError(err) }),
        );
      }),
    retry: ({ sessionId }) => withSession(sessionId, (session) => run.startSession(session)),
    screenshot: ({ sessionId }) => screenshot(run, sessionId),
    // `x`: the session, its viewer and its follow-ups end; the others go on.
    close: async ({ sessionId }) => {
      run.followUps.untrack(sessionId);
      await run.viewers.router.stop(sessionId);
      await run.registry.remove(sessionId);
    },
    // `p`, `K`, `b`: keys through the session each console has; `P` then y: its VM's power.
    paste: ({ sessionIds, text, broadcast }) => inputs.paste(sessionIds, text, broadcast),
    'send-key': ({ sessionIds, key, broadcast }) => inputs.sendKey(sessionIds, key, broadcast),
    'broadcast-end': ({ sessionIds }) => inputs.endBroadcast(sessionIds),
    power: ({ sessionId, power }) => powerSession(powerHost, sessionId, power),
    add: ({ text }) => run.addTarget(text),
    'save-workspace': ({ name }) => saveOpenAsWorkspace(name, run.registry.all(), run.settings.flags, run.settings.config, run.selectedIds),
    quit: () => {
      inputs.closeAll();
      run.quit();
    },
  };
}

/** What the TUI reads of the run besides its requests: `a`'s listings (asked anew each time) and the grid's tiles on screen. */
export function tuiFeeds(run: ActionHost): Pick<RenderConsoleOptions, 'listVms' | 'onThumbnailView' | 'powerActions'> {
  return {
    powerActions: POWER_ACTIONS,
    listVms: () => listingSources(run.settings.options, run.settings.config),
    onThumbnailView: (tiles) => run.followUps.showPictures(tiles),
  };
}

/** `s` on a screen's row: a PNG of it; resolves with what to tell the user. */
async function screenshot(run: ActionHost, id: number): Promise<string> {
  const session = run.registry.get(id);
  if (!session) throw new VconsoleError('that session is gone');
  const kind = consoleKind(session.source.facts.consoleType);
  // vconsole reads RFB only: a SPICE screen is shown by its viewer, never decoded here.
  if (kind && kind.reads !== 'rfb')
    throw new VconsoleError(`${session.name}: s pictures VNC screens; a ${kind.label} console is not one`, {
      hint: 'take the picture in its viewer (Enter opens it)',
    });
  // The PNG encoder loads on the first screenshot, not before the first viewer starts.
  const { saveSessionScreenshot } = await import('./screenshot.js');
  const { sharing } = run.settings.plan;
  const file = await saveSessionScreenshot(session.snapshot(), {
    password: sharing.clientPassword,
    // Beyond loopback the port speaks TLS: the picture is the hub's own.
    shared: sharing.tls ? sharing.hubOf(session)?.framebuffer : undefined,
    exclusive: session.source.facts.exclusive,
    shareHint: run.settings.plan.shareHint,
  });
  return `${session.name}: screenshot saved to ${file}`;
}
