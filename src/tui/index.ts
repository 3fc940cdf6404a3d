/**
 * The `vconsole open` terminal UI: a store fed by session events, and the Ink app that renders it.
 * `open` loads this lazily, so ink and react load only when a TUI is shown.
 */
export type { ConsoleHandlers, ConsoleRequest, ConsoleRequestName, ConsoleRequests } from './state/requests.js';
export { renderConsoleApp } from './components/render-console-app.js';
export type { ConsoleAppHandle, RenderConsoleOptions } from './components/render-console-app.js';
export { ConsoleStore } from './state/console-store.js';
export type { ConsoleState, NoViewerNotice } from './state/console-store.js';
export type { ConsoleEvent } from './state/events.js';
export type { ConsoleRow, LogLine, SerialStatus, ViewerStatus } from './layout/format.js';
