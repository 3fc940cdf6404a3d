// The registry of console kinds. A new kind is its own file plus one line in CONSOLE_KINDS;
// `ConsoleType`, `--type`'s values, `auto`'s order and the viewers' routing derive from this list.
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

/** The kind with this id; undefined for a name no kind has (or none at all). */
export function consoleKind(id: string | undefined): ConsoleKind | undefined {
  return CONSOLE_KINDS.find((kind) => kind.id === id);
}

/** The kind of a console type (always there: a ConsoleType is a registered kind's id). */
export function kindOf(type: ConsoleType): ConsoleKind {
  return consoleKind(type) as ConsoleKind;
}

/** The types of the kinds that pass `test`, in registry order. */
export function consoleTypesWhere(test: (kind: ConsoleKind) => boolean): ConsoleType[] {
  return CONSOLE_KINDS.filter((kind) => test(kind)).map((kind) => kind.id);
}

/**
 * Of the types a provider offers (or a VM has), those `--type auto` may pick, best first
 * (lowest autoRank): a kind without autoRank (a browser-only console) is never picked.
 */
export function autoOrder<T extends string>(offered: readonly T[]): T[] {
  const rank = (type: T) => consoleKind(type)?.autoRank;
  return offered.filter((type) => rank(type) !== undefined).sort((a, b) => (rank(a) as number) - (rank(b) as number));
}

/**
 * What `auto` prefers above all (a VNC screen), which is also what a console that names no
 * type is taken to be: RFB tools never say what they serve.
 */
export const DEFAULT_CONSOLE_TYPE: ConsoleType = autoOrder(CONSOLE_TYPES)[0];

/** What prose calls a console type (`VNC`, `SPICE`, `serial`); a name no kind has, as it is. */
export function consoleLabel(id: string): string {
  return consoleKind(id)?.label ?? id;
}

export type { ConsoleKind, KindRecording } from './types.js';
