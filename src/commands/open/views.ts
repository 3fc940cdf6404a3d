import { describeError } from '../../errors.js';
import type { SessionRegistry } from '../../proxy/session-registry.js';
import type { VmState } from '../../targets/types.js';
import type { Thumbnail, ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';
import type { ViewerStatusEvent } from '../../viewers/viewer-supervisor.js';
import { printLine, sessionLogPrinter } from '../log-lines.js';
import type { SerialView } from './serial.js';
import type { CommandIo } from '../proxy.js';

/**
 * The two faces of `vconsole open`: the Ink TUI on a terminal, plain lines on stderr otherwise.
 * open.ts tells a view what happens; a view never reaches back into sessions or viewers.
 */

/** What a user interface shows of `open`: the TUI's store, or plain lines on stderr. */
export interface OpenView extends SerialView {
  viewer(event: ViewerStatusEvent): void;
  /** A shared console dropped (its viewers stay) or is back. */
  upstream(sessionId: number, status: { reconnecting: boolean }): void;
  /** A recorded console's recording has grown to `bytes`. */
  recording(sessionId: number, bytes: number): void;
  /** The VM's state changed (its log line is written already). */
  vmState(sessionId: number, state: VmState): void;
  /** What the session's grid tile shows now. */
  thumbnail(sessionId: number, thumbnail: Thumbnail | undefined): void;
  /** Gives the terminal to an attached serial console, and takes it back. */
  suspend(): Promise<void>;
  resume(): void;
  noViewer(lookedFor: string[], install: string): void;
  /** open --follow: the session's VM matches the selectors (again), or no longer. */
  match(sessionId: number, matching: boolean): void;
  notice(text: string): void;
  close(): void;
}

/** Plain lines on stderr, for pipes, CI and --no-tui. */
export function plainView(registry: SessionRegistry, io: CommandIo, verbose: boolean): OpenView {
  const onLog = sessionLogPrinter(io.stderr, verbose);
  registry.on('log', onLog);
  const name = (key: number) => registry.get(key)?.name ?? `session ${key}`;
  return {
    viewer: (event) => {
      const text = event.state === 'open' ? `${event.viewerName} opened` : event.message ?? `${event.viewerName} ${event.state}`;
      printLine(io.stderr, `[${name(event.key)}] ${event.state === 'failed' ? 'viewer failed' : 'viewer'}: ${text}`);
    },
    noViewer: (looked, install) => {
      printLine(io.stderr, `no VNC viewer found (looked for ${looked.join('; ')}).`);
      printLine(io.stderr, install);
      printLine(io.stderr, 'Screens open in the browser meanwhile; any VNC viewer can connect to the addresses printed on stdout.');
    },
    notice: (text) => printLine(io.stderr, text),
    // The notice said it in a line of its own.
    match: () => undefined,
    serial: () => undefined,
    upstream: () => undefined,
    recording: () => undefined,
    vmState: () => undefined,
    thumbnail: () => undefined,
    suspend: () => Promise.resolve(),
    resume: () => undefined,
    close: () => registry.off('log', onLog),
  };
}

/**
 * The Ink TUI; ink and react load only here. The store exists at once and sees every session
 * from its start; ink and react (the slowest thing `open` loads, ~100 ms of the one thread) load
 * once the first viewers are launched and draw the store then, so they never delay a viewer.
 */
export async function mountTui(
  registry: SessionRegistry,
  actions: import('../../tui/components/app.js').ConsoleActions,
  options: { detachKey: string; grid: boolean; thumbnails: ThumbnailMode },
  /** Ink loads once this settles (when the first viewers show their consoles). */
  loadAfter: Promise<unknown> = Promise.resolve(),
): Promise<OpenView> {
  // React's development build draws a frame about twice as slowly (docs/BENCHMARKS.md).
  process.env.NODE_ENV ??= 'production';
  const { ConsoleStore } = await import('../../tui/state/console-store.js');
  const store = new ConsoleStore(registry);
  let mounted = true;
  const loading = loadAfter
    .then(() => (mounted ? importWithoutCiFlags(() => import('../../tui/components/render-console-app.js')) : undefined))
    .then((loaded) => (mounted && loaded ? loaded.renderConsoleApp(store, actions, options) : undefined));
  loading.catch((err: unknown) => {
    process.stderr.write(`vconsole: the terminal UI could not start: ${describeError(err)}\n`);
    void actions.onQuit();
  });
  const app = {
    suspend: async () => (await loading)?.suspend(),
    resume: () => void loading.then((a) => a?.resume()),
    unmount: () => void loading.then((a) => a?.unmount(), () => undefined),
  };
  return {
    viewer: (event) => {
      store.setViewer(event.key, { state: event.state, name: event.viewerName, exitCode: event.exitCode, message: event.message });
      if (event.message) store.log(event.state === 'failed' ? 'error' : 'info', `${registry.get(event.key)?.name ?? ''}: ${event.message}`);
    },
    noViewer: (looked, install) => store.setNoViewer({ lookedFor: looked, install }),
    notice: (text) => store.setNotice(text),
    match: (id, matching) => store.setMatch(id, matching),
    serial: (id, status) => store.setSerial(id, status),
    upstream: (id, status) => store.setUpstream(id, status),
    recording: (id, bytes) => store.setRecording(id, bytes),
    vmState: (id, state) => store.setVmState(id, state.phase),
    thumbnail: (id, thumbnail) => store.setThumbnail(id, thumbnail),
    suspend: () => app.suspend(),
    resume: () => app.resume(),
    close: () => {
      if (!mounted) return;
      mounted = false;
      app.unmount();
      store.dispose();
    },
  };
}

/**
 * Ink draws only the last frame when it believes it runs in CI (CI or CONTINUOUS_INTEGRATION
 * set when it loads). We draw the TUI only on a real terminal, so it must draw live there even
 * when those variables are set (a CI job driving tmux, a shell that exports CI=1). The
 * variables are back in place for everything else, viewers included.
 */
export async function importWithoutCiFlags<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await load();
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
  }
}
