// The registry of console kinds. A new kind is its own file plus one line in CONSOLE_KINDS;
// `ConsoleType`, `--type`'s values and the viewers' routing derive from this list.
import { mksKind } from './mks.js';
import { rdpKind } from './rdp.js';
import { serialKind } from './serial.js';
import { spiceKind } from './spice.js';
import type { ConsoleKind } from './types.js';
import { vncKind } from './vnc.js';

export const CONSOLE_KINDS = [vncKind, serialKind, spiceKind, rdpKind, mksKind] as const satisfies readonly ConsoleKind[];

/** The id of a console kind: what `--type` and `#TYPE` name. */
export type ConsoleType = (typeof CONSOLE_KINDS)[number]['id'];

/** Every console type, in registry order. */
export const CONSOLE_TYPES: readonly ConsoleType[] = CONSOLE_KINDS.map((kind) => kind.id);

/** The kind with this id; undefined for a name no kind has. */
export function consoleKind(id: string): ConsoleKind | undefined {
  return CONSOLE_KINDS.find((kind) => kind.id === id);
}

/** Whether `id` names a console kind. */
export function isConsoleType(id: string): id is ConsoleType {
  return consoleKind(id) !== undefined;
}

export type { ConsoleKind, KindCarriage, KindRecording, KindSharing } from './types.js';
