/**
 * The config file as the commands see it: its contents, aliases and workspaces. The file is read
 * and a workspace saved through lazy imports of their own modules (a lazy import() may name a deep
 * module). src/commands import src/config statically only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { expandAlias, loadConfig } from './config.js';
export type { VconsoleConfig } from './config.js';
export { expandWorkspace } from './workspaces.js';
export type { SavedWorkspace } from './workspaces.js';
