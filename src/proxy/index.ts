/**
 * The data path as the commands see it: a console session, the registry of sessions, the
 * decorator chain's base, shutdown on signals, and the types an upstream source is made of.
 * src/commands import the data path only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { ConsoleFailure } from './console-failure.js';
export { ConsoleSession } from './console-session.js';
export { SessionClosedError } from './session-phase.js';
export type { BoundAddress } from './console-session.js';
export { DuplicateConsoleError, SessionRegistry } from './session-registry.js';
export { handleShutdownSignals } from './shutdown.js';
export type { DialContext, LogLevel, SessionLogEntry, SessionSnapshot, UpstreamSource } from './types.js';
export { WrappedSource, sourceChain, vmIdentity } from './wrapped-source.js';
