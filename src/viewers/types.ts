import type { ConsoleType } from '../console-kinds/index.js';

/** The operating systems vconsole looks for viewers on (Node's `process.platform` names). */
export type HostPlatform = 'linux' | 'darwin' | 'win32';

/** The viewers vconsole knows how to hand an address to; `custom` is any other executable. */
export type ViewerId = 'tigervnc' | 'remote-viewer' | 'realvnc' | 'tightvnc' | 'chicken' | 'screen-sharing' | 'custom';

/** The kinds of console a viewer may show: the console kinds' ids (src/console-kinds, no provider). */
export type ViewerConsoleType = ConsoleType;

/** One viewer found on this machine. */
export interface ViewerCandidate {
  id: ViewerId;
  /** Human name, e.g. `TigerVNC`. */
  name: string;
  /** Absolute path of the executable to run (`/usr/bin/open` for macOS Screen Sharing). */
  path: string;
  /** Version the viewer reports or its install directory names; undefined when unknown. */
  version?: string;
}

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
}
