// What a viewer is given and gives back: the machine it is looked for on (injected, so detection
// is pure), the address it connects to, the command line that starts it. A leaf of src/viewers:
// the descriptors import it, and it imports no viewer.
import type { ConsoleType } from '../console-kinds/index.js';

/** The operating systems vconsole looks for viewers on (Node's `process.platform` names). */
export type HostPlatform = 'linux' | 'darwin' | 'win32';

/** The kinds of console a viewer may show: the console kinds of src/console-kinds. */
export type ViewerConsoleType = ConsoleType;

/**
 * Everything detection may ask of the machine, injected so that detection and argument
 * building are pure and testable over fake file systems. `systemViewerEnvironment()` in
 * system-environment.ts supplies the real one.
 */
export interface ViewerEnvironment {
  platform: HostPlatform;
  /** Environment variables (PATH, HOME, ProgramFiles, PATHEXT, VCONSOLE_VIEWER, ...). */
  env: Record<string, string | undefined>;
  /** Directory relative `--viewer` paths are resolved against; defaults to the root. */
  cwd?: string;
  fileExists(path: string): boolean;
  /** Defaults to `fileExists`; on Windows existence is all that matters. */
  isExecutable?(path: string): boolean;
  /** Entry names of a directory, [] when it cannot be read; used for versioned install dirs. */
  listDir?(path: string): string[];
  /** A small text file (an app bundle's Info.plist), undefined when it cannot be read. */
  readTextFile?(path: string): string | undefined;
  /**
   * Runs `path args` headless with a short timeout and resolves with stdout and stderr
   * together ('' when it cannot run). Never opens a window.
   */
  runVersion?(path: string, args: string[]): Promise<string>;
}

/** A program and its arguments, ready for spawn (no shell). */
export interface ViewerCommand {
  command: string;
  args: string[];
  /**
   * True when the command hands the address to another program and returns at once
   * (macOS `open`): its exit 0 means "launched", not "viewer closed".
   */
  detaches?: boolean;
}

/** Where the viewer should connect and what to call its window. */
export interface ViewerTarget {
  /** Listen address of the local port: `127.0.0.1`, `::1`, ... (no brackets). */
  host: string;
  port: number;
  /** Window title naming the VM, for viewers that take one. */
  title?: string;
  /** `--viewer-arg` values, passed before the address. */
  extraArgs?: string[];
  /** What the port serves (default `vnc`): a SPICE console needs a viewer that speaks SPICE. */
  consoleType?: ViewerConsoleType;
  /**
   * A connection file to open instead of the port (remote-viewer's `.vv`, for a console the
   * viewer reaches through the platform's own proxy): private, and deleted by the viewer.
   */
  connectionFile?: string;
}
