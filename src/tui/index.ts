/**
 * The `vconsole open` terminal UI as the commands see it: the key help and the thumbnail modes
 * (which `--help` shows), the picture scaling a thumbnail is sampled with, and the types of the
 * store, its events and requests, the picker and the app. Every command loads this for its
 * `--help`, so what draws (ink, react: the store, the app, the picker) is loaded by a lazy import()
 * of its module when `open` shows a TUI. The text measuring of the TUI's lines (layout/format.ts,
 * thumbnails/text.ts) is not here either: it loads get-east-asian-width, which `--help` does not
 * need. src/commands import src/tui only through these (docs/ARCHITECTURE.md, "Walls").
 */
export type { RenderConsoleOptions } from './components/render-console-app.js';
export type { ProviderPlace } from './state/console-store-types.js';
export type { ConsoleEvent, ConsoleEventOf } from './state/events.js';
export { keyHelpText } from './state/key-help.js';
export type { PickerOutcome, PickerVm, VmListingSource } from './state/picker-model.js';
export type { ConsoleHandlers } from './state/requests.js';
export { scaleBgrxToRgb } from './thumbnails/scale.js';
export { THUMBNAIL_MODES, detectThumbnailMode, parseThumbnailMode } from './thumbnails/thumbnail.js';
export type { Thumbnail, ThumbnailMode, ThumbnailView } from './thumbnails/thumbnail.js';
