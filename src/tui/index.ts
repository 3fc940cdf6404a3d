/** The `vconsole open` terminal UI: a store fed by session events, and the Ink app that renders it. */
export { App, osc52, renderConsoleApp, LOG_LINES } from './app.js';
export type { AppProps, ConsoleActions, ConsoleAppHandle, RenderConsoleOptions } from './app.js';
export { ConsoleStore, LOG_LIMIT, RATE_DECAY_MS } from './console-store.js';
export type {
  ConsoleState,
  ConsoleStoreOptions,
  NoViewerNotice,
  SessionEventSource,
  SessionSourceEvents,
} from './console-store.js';
export {
  formatBytes,
  formatDuration,
  formatLogLine,
  formatRate,
  formatRowLine,
  rowAddress,
  rowDisplayState,
  rowProblem,
} from './format.js';
export type { ConsoleRow, LogLine, RowDisplayState, ViewerState, ViewerStatus } from './format.js';
export { FRAME_MS } from './hooks.js';
