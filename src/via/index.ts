/**
 * --via as the commands see it: the far address, the ssh link and its protocol, the far end's
 * connection, and the executables `install` copies. src/commands import src/via only through
 * here (docs/ARCHITECTURE.md, "Walls").
 */
export { parseViaAddress, sshArgs } from './address.js';
export type { ViaAddress } from './address.js';
export { ViaConnection } from './connection.js';
export type { FarHandlers } from './connection.js';
export { executableName, findExecutable, hostKindFromUname } from './executables.js';
export type { MuxStream } from './mux-stream.js';
export { AGENT_PREAMBLE, VIA_PROTOCOL, farCommandFrom, isFarTarget, sshCommandFrom } from './protocol.js';
export type { FarTarget } from './protocol.js';
export { RemoteTarget } from './remote-target.js';
export { ViaLink } from './ssh-link.js';
