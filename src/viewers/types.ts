// The viewers' public types. `ViewerId` derives from the descriptor list, so a new viewer is its
// descriptor file plus one line there; the machine- and command-facing types live in viewer-io.ts,
// which the descriptors import (this file imports the list, so they cannot import it).
import type { ViewerId } from './descriptors/index.js';
import type { ViewerConsoleType } from './viewer-io.js';

export type { ViewerId } from './descriptors/index.js';
export type { HostPlatform, ViewerCommand, ViewerConsoleType, ViewerEnvironment, ViewerTarget } from './viewer-io.js';

/** One viewer found on this machine. */
export interface ViewerCandidate {
  id: ViewerId;
  /** Human name, e.g. `TigerVNC`. */
  name: string;
  /** Absolute path of the executable to run (`/usr/bin/open` for macOS Screen Sharing). */
  path: string;
  /** Version the viewer reports or its install directory names; undefined when unknown. */
  version?: string;
  /**
   * The kinds this copy shows, where copies of the viewer differ (Remmina shows SPICE only with
   * its SPICE plugin); undefined: what its descriptor's `shows` lists. Read it through
   * `candidateShows` (catalog.ts).
   */
  shows?: readonly ViewerConsoleType[];
}
