/**
 * Holding and joining consoles as the commands see them: the consoles this user's vconsoles hold
 * now (`ps`), the runtime directory they are listed in, and the source that joins one instead of
 * dialling it. src/commands import src/holding only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { heldConsoles } from './held-consoles.js';
export type { HeldRecord } from './held-record.js';
export { JoinSource } from './join-source.js';
export type { JoinOptions } from './join-source.js';
export { RuntimeDirError, ensureRuntimeDir, processPlace, runtimeDirPath } from './runtime-dir.js';
