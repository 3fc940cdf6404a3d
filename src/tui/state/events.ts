import type { LogLevel } from '../../proxy/types.js';
import type { UpstreamStatus, ViewerStatus } from '../layout/format.js';
import type { Thumbnail } from '../thumbnails/thumbnail.js';
import type { NoViewerNotice, ProviderPlace } from './console-store-types.js';

/**
 * What the caller tells the TUI about `open`, one event at a time: the only way facts other
 * than the session registry's reach the store (`ConsoleStore.apply`). A new fact is one more
 * member here and one more case in the store; the feeders (commands/open) only build events.
 * Texts in them come as they are (target names, viewer output, cloud errors): the store makes
 * them terminal-safe.
 */
export type ConsoleEvent =
  /** What the session's viewer is doing (also before the session's row exists). */
  | { type: 'viewer'; sessionId: number; status: ViewerStatus }
  /**
   * How much of a serial console's output is unread; `waiting` says why the line is not open
   * yet (shown as the row's problem while it connects), a status without it clears it.
   */
  | { type: 'serial'; sessionId: number; status: { unseenBytes: number; waiting?: string } }
  /** A shared console dropped (its viewers stay) or is back. */
  | { type: 'upstream'; sessionId: number; status: UpstreamStatus }
  /** A recorded console's recording has grown to `bytes`. */
  | { type: 'recording'; sessionId: number; bytes: number }
  /** The phase of the session's VM (`Running`, `Stopped`, ...). */
  | { type: 'vm-state'; sessionId: number; phase: string }
  /** What the session's grid tile shows now; undefined clears it. */
  | { type: 'thumbnail'; sessionId: number; thumbnail: Thumbnail | undefined }
  /** open --follow: the session's VM matches the selectors (again), or no longer. */
  | { type: 'match'; sessionId: number; matching: boolean }
  /** One line above the table; undefined clears it. */
  | { type: 'notice'; text: string | undefined }
  /** No viewer was found: what was looked for and how to get one; undefined clears it. */
  | { type: 'no-viewer'; notice: NoViewerNotice | undefined }
  /** Where the providers in use point (kube context and namespace, cloud and region), for the header. */
  | { type: 'places'; places: readonly ProviderPlace[] }
  /** A line of vconsole itself in the event log. */
  | { type: 'log'; level: LogLevel; message: string };

/** One kind of event, by its `type`. */
export type ConsoleEventOf<T extends ConsoleEvent['type']> = Extract<ConsoleEvent, { type: T }>;
