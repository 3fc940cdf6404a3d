// What one viewer is, as data plus two small functions: the consoles it shows, where it lives and
// how it is preferred on each OS, how it says what it is, and its command line. Detection, the
// catalogue, `--viewer NAME` and command building loop over the list in index.ts.
import type { ConsoleKind, ConsoleType } from '../../console-kinds/index.js';
import type { HostPlatform, ViewerCommand, ViewerEnvironment, ViewerTarget } from '../viewer-io.js';

/**
 * A place a viewer may be installed, or what a path the user named says about itself.
 * `probe` says what running the program tells: absent, nothing is run (an app bundle, any
 * Windows program: a GUI may answer `-help` with a dialog box); `version`, the path is this
 * viewer and the program is asked its version; `identity`, the path is a name several viewers
 * install (`vncviewer`), and the program's answer decides which one it is.
 */
export interface ViewerPlace {
  path: string;
  /** Known without running the program (an install directory or an Info.plist names it). */
  version?: string;
  probe?: 'version' | 'identity';
}

/** How the program says what it is: the argument lists to try in turn, and how to read one answer. */
interface ViewerProbe {
  args: readonly (readonly string[])[];
  /** What the answer says about this viewer; undefined when the answer is not this viewer's. */
  read(output: string): { version?: string } | undefined;
}

/** Where the viewer should connect, with the kind of console the port serves. */
export interface ViewerAddress extends ViewerTarget {
  kind: ConsoleKind;
}

export interface ViewerDescriptor<Id extends string = string> {
  /** What `--viewer` names it and `vconsole viewers --json` reports. */
  readonly id: Id;
  /** What messages call it: `TigerVNC`. */
  readonly name: string;
  /** The console kinds `open` routes to every copy of it. */
  readonly shows: readonly ConsoleType[];
  /**
   * Kinds only some copies show, each with what a copy needs for it (`its SPICE plugin`) and
   * the package that adds it; `showsHere` says which a found copy has. The notices naming the
   * viewers of a kind ("only remote-viewer shows SPICE") are made from `shows` and this.
   */
  readonly showsWith?: Partial<Record<ConsoleType, { needs: string; install: string }>>;
  /**
   * The kinds the copy at `path` shows (`shows` and those of `showsWith` it has), asked while
   * locating it, from `system` alone; absent, every copy shows `shows`.
   */
  showsHere?(system: ViewerEnvironment, path: string): readonly ConsoleType[];
  /**
   * Other words `--viewer` takes for it: the names of its executables (`vncviewer`,
   * `xtigervncviewer`) and virtctl's `--vnc-type` word (`tiger`). A word several viewers list
   * (`vncviewer`) picks whichever of them is found here, in the preference order.
   */
  readonly aliases?: readonly string[];
  /** False for `custom`: what a `--viewer PATH` names when no descriptor recognises it, never a name. */
  readonly byName?: false;
  /** Its rank in `open`'s preference on each OS, lower first; on an OS without one it comes after those with one. */
  readonly preference: Partial<Record<HostPlatform, number>>;
  /** "Looked for" text for each OS it is looked for on, for the "no viewer found" messages. */
  readonly lookedFor: Partial<Record<HostPlatform, string>>;
  /** Where it may be installed on `system`'s OS, most wanted first. */
  places(system: ViewerEnvironment): ViewerPlace[];
  /**
   * What a `--viewer PATH` says about being this viewer by its path alone (`name` is its file
   * name, lower case, without `.exe`); undefined: it is not this viewer.
   */
  recognise?(name: string, file: string, platform: HostPlatform): Omit<ViewerPlace, 'path'> | undefined;
  readonly probe?: ViewerProbe;
  /** The command line that shows `address`; undefined for a kind of console it cannot show. */
  command(path: string, address: ViewerAddress): ViewerCommand | undefined;
}

/** Declares a descriptor, keeping its id as a literal type so `ViewerId` can derive from the list. */
export function defineViewer<const Id extends string>(descriptor: ViewerDescriptor<Id>): ViewerDescriptor<Id> {
  return descriptor;
}
