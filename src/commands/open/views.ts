import { describeError } from '../../errors.js';
import type { SessionRegistry } from '../../proxy/index.js';
import type { ConsoleEvent, ConsoleEventOf, ConsoleHandlers, RenderConsoleOptions, ThumbnailMode } from '../../tui/index.js';
import type { ViewerStatusEvent } from '../../viewers/index.js';
import { printLine, sessionLogPrinter } from '../log-lines.js';
import type { CommandIo } from '../command-io.js';

/**
 * The two faces of `vconsole open`: the Ink TUI on a terminal, plain lines on stderr otherwise.
 * open.ts tells a view what happens, as events; a view never reaches back into sessions or viewers.
 */

/**
 * What a user interface shows of `open`: the TUI's store, or plain lines on stderr. Facts
 * arrive as the TUI's events (tui/state/events.ts), the same for both faces.
 */
export interface OpenView {
  show(event: ConsoleEvent): void;
  /** Gives the terminal to an attached serial console, and takes it back. */
  suspend(): Promise<void>;
  resume(): void;
  close(): void;
}

/** A viewer's news as the TUI's event: its row's viewer status. */
export function viewerEvent(event: ViewerStatusEvent): ConsoleEventOf<'viewer'> {
  return {
    type: 'viewer',
    sessionId: event.key,
    status: { state: event.state, name: event.viewerName, exitCode: event.exitCode, message: event.message },
  };
}

/** Plain lines on stderr, for pipes, CI and --no-tui. */
export function plainView(registry: SessionRegistry, io: CommandIo, verbose: boolean): OpenView {
  const onLog = sessionLogPrinter(io.stderr, verbose);
  registry.on('log', onLog);
  const name = (key: number) => registry.get(key)?.name ?? `session ${key}`;
  return {
    show: (event) => {
      switch (event.type) {
        case 'viewer': {
          const { state, name: viewerName, message } = event.status;
          // Its console's ssh -L line says it, once.
          if (state === 'no-display') return;
          const text = state === 'open' ? `${viewerName} opened` : (message ?? `${viewerName} ${state}`);
          return printLine(io.stderr, `[${name(event.sessionId)}] ${state === 'failed' ? 'viewer failed' : 'viewer'}: ${text}`);
        }
        case 'no-viewer':
          if (!event.notice) return;
          printLine(io.stderr, `no VNC viewer found (looked for ${event.notice.lookedFor.join('; ')}).`);
          printLine(io.stderr, event.notice.install);
          return printLine(
            io.stderr,
            'Screens open in the browser meanwhile; any VNC viewer can connect to the addresses printed on stdout.',
          );
        case 'notice':
        case 'log': {
          const text = event.type === 'notice' ? event.text : event.message;
          return text === undefined ? undefined : printLine(io.stderr, text);
        }
        // Row facts; a match's change is said by its notice in a line of its own.
        default:
          return;
      }
    },
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
  handlers: ConsoleHandlers,
  options: { detachKey: string; grid: boolean; thumbnails: ThumbnailMode } & Pick<
    RenderConsoleOptions,
    'listVms' | 'onThumbnailView' | 'powerActions'
  >,
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
    .then((loaded) => (mounted && loaded ? loaded.renderConsoleApp(store, handlers, options) : undefined));
  loading.catch((err: unknown) => {
    process.stderr.write(`vconsole: the terminal UI could not start: ${describeError(err)}\n`);
    void handlers.quit({ action: 'quit' });
  });
  const app = {
    suspend: async () => (await loading)?.suspend(),
    resume: () => void loading.then((a) => a?.resume()),
    unmount: () =>
      void loading.then(
        (a) => a?.unmount(),
        () => undefined,
      ),
  };
  return {
    show: (event) => {
      store.apply(event);
      // What a viewer said of its end goes to the event log too, under its console's name.
      if (event.type === 'viewer' && event.status.message) {
        store.apply({
          type: 'log',
          level: event.status.state === 'failed' ? 'error' : 'info',
          message: `${registry.get(event.sessionId)?.name ?? ''}: ${event.status.message}`,
        });
      }
    },
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
