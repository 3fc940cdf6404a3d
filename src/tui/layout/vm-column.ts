/**
 * The VM column: the phase a session's VM is in (Running, Stopped, Paused, Migrating,
 * Starting, Failed, gone), as its provider reports it. Rows of consoles that are no VM (demo,
 * websocket, tcp, unix) have none, and the column shows only while some row has one.
 */
import type { Colour } from '../../terminal/colour.js';
import type { ConsoleRow } from './format.js';

/** `Migrating`, the longest phase. */
export const VM_COLUMN_WIDTH = 9;

/** Phases where the VM is not there to show a console: the row is marked (dimmed). */
const DOWN = new Set(['Stopped', 'Failed', 'gone']);
const BUSY = new Set(['Paused', 'Migrating', 'Starting']);

/** The VM cell: its phase, empty when the provider tells none. */
export function vmCell(row: ConsoleRow): string {
  return row.vm ?? '';
}

/** True when the row's VM stopped, failed or is gone. */
export function vmIsDown(row: ConsoleRow): boolean {
  return row.vm !== undefined && DOWN.has(row.vm);
}

/** The colour of the VM cell; a phase vconsole does not know (`Unknown`) keeps the terminal's foreground. */
export function vmColor(row: ConsoleRow): Colour | undefined {
  if (row.vm === undefined) return undefined;
  if (row.vm === 'Running') return 'green';
  if (DOWN.has(row.vm)) return 'red';
  if (BUSY.has(row.vm)) return 'yellow';
  return undefined;
}
