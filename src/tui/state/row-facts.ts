import { terminalSafe } from '../../text/terminal-text.js';
import { safeText, safeThumbnail } from '../layout/display-safe.js';
import { formatBytes, unseenText, type ConsoleRow, type SerialStatus } from '../layout/format.js';
import type { ConsoleEvent } from './events.js';

/**
 * What each event about one session puts on its row, terminal-safe, and when the row already
 * shows it (so no frame is made for nothing: serial output and recordings report many times a
 * second). The store keeps these per session, also before the row exists.
 */

/** What a row shows besides its session's snapshot and rates: said by the caller, per session. */
export type RowExtras = Partial<Pick<ConsoleRow, 'viewer' | 'serial' | 'upstream' | 'recordedBytes' | 'vm' | 'thumbnail' | 'unmatched'>>;

/** One field of a row: its new value (undefined clears it), and whether a row shows it already. */
export type RowFact = {
  [K in keyof RowExtras]-?: { key: K; value: RowExtras[K]; unchanged?: (row: ConsoleRow) => boolean };
}[keyof RowExtras];

/** The events about one session. */
type SessionEvent = Extract<ConsoleEvent, { sessionId: number }>;

export function rowFact(event: SessionEvent): RowFact {
  switch (event.type) {
    case 'viewer': {
      const { status } = event;
      return { key: 'viewer', value: { ...status, name: safeText(status.name), message: safeText(status.message) } };
    }
    case 'serial': {
      // Nothing unread to some, or the size as printed (`1.2 KB`), or why the line waits.
      const bytes = event.status.unseenBytes;
      const waiting = event.status.waiting;
      const serial: SerialStatus = {
        unseenBytes: Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : 0,
        ...(waiting ? { waiting: safeText(waiting) } : {}),
      };
      return {
        key: 'serial',
        value: serial,
        unchanged: (row) => unseenText(row.serial) === unseenText(serial) && row.serial?.waiting === serial.waiting,
      };
    }
    case 'upstream': {
      const reconnecting = event.status.reconnecting;
      const ended = safeText(event.status.ended);
      return {
        key: 'upstream',
        value: { reconnecting, ...(ended ? { ended } : {}) },
        unchanged: (row) => (row.upstream?.reconnecting ?? false) === reconnecting && row.upstream?.ended === ended,
      };
    }
    case 'recording': {
      const { bytes } = event;
      return {
        key: 'recordedBytes',
        value: bytes,
        unchanged: (row) => row.recordedBytes !== undefined && formatBytes(row.recordedBytes) === formatBytes(bytes),
      };
    }
    case 'vm-state': {
      const vm = terminalSafe(event.phase);
      return { key: 'vm', value: vm, unchanged: (row) => row.vm === vm };
    }
    // Text in a tile (serial lines, a reason) is made safe; pixels are only pixels.
    case 'thumbnail':
      return { key: 'thumbnail', value: event.thumbnail && safeThumbnail(event.thumbnail) };
    case 'match': {
      const { matching } = event;
      return { key: 'unmatched', value: matching ? undefined : true, unchanged: (row) => Boolean(row.unmatched) === !matching };
    }
  }
}
