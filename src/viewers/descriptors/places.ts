// Where viewers are installed, as the descriptors ask: PATH, macOS app bundles (with the version
// their Info.plist or bundle name gives), Windows Program Files. Pure over the injected machine.
import { findOnPath, homeDirectory, pathFor } from '../locate.js';
import type { HostPlatform, ViewerEnvironment } from '../viewer-io.js';
import type { ViewerPlace } from './types.js';

/** Homebrew's bin directories: a GUI-launched shell on macOS may not have them on PATH. */
export const HOMEBREW_BIN = ['/opt/homebrew/bin', '/usr/local/bin'];

/** `name` found on PATH (then in `extraDirs`), as a place with these facts; none when absent. */
export function onPath(
  system: ViewerEnvironment,
  name: string,
  facts: Omit<ViewerPlace, 'path'> = {},
  extraDirs: string[] = [],
): ViewerPlace[] {
  const found = findOnPath(system, name, extraDirs);
  return found ? [{ path: found, ...facts }] : [];
}

/** `/Applications` and `~/Applications`, where macOS app bundles are installed. */
export function macAppDirectories(system: ViewerEnvironment): string[] {
  const home = homeDirectory(system);
  return ['/Applications', ...(home ? [pathFor('darwin').join(home, 'Applications')] : [])];
}

/** The executable inside an app bundle: `DIR/APP/Contents/MacOS/EXE`. */
export function bundleExecutable(dir: string, app: string, exe: string): string {
  return pathFor('darwin').join(dir, app, 'Contents', 'MacOS', exe);
}

/** CFBundleShortVersionString from an app bundle's Info.plist (XML form). */
function versionFromInfoPlist(plist: string): string | undefined {
  return /<key>CFBundleShortVersionString<\/key>\s*<string>([^<]+)<\/string>/.exec(plist)?.[1]?.trim();
}

/** The version an installed app bundle's Info.plist gives, undefined when it cannot be read. */
export function bundleVersion(system: ViewerEnvironment, dir: string, app: string): string | undefined {
  const text = system.readTextFile?.(pathFor('darwin').join(dir, app, 'Contents', 'Info.plist'));
  return text ? versionFromInfoPlist(text) : undefined;
}

/** An app bundle's executable in each app directory, with the version its Info.plist gives. */
export function appBundlePlaces(system: ViewerEnvironment, app: string, exe: string): ViewerPlace[] {
  return macAppDirectories(system).map((dir) => ({ path: bundleExecutable(dir, app, exe), version: bundleVersion(system, dir, app) }));
}

/** A version number `1.2` or `1.14.1`, for the descriptors' patterns. */
export const VERSION = String.raw`(\d+(?:\.\d+)+)`;

/** Windows install directories of vncviewer.exe builds that are not TigerVNC (the default). */
const OTHER_VNCVIEWER_DIRS = { realvnc: /\\RealVNC\\/i, tightvnc: /\\TightVNC\\/i } as const;

/**
 * Which viewer a Windows vncviewer.exe is, told by the directory it was installed in (no
 * program is run on Windows): RealVNC's, TightVNC's, or else TigerVNC.
 */
function windowsVncviewerIs(file: string): 'tigervnc' | 'realvnc' | 'tightvnc' {
  if (OTHER_VNCVIEWER_DIRS.realvnc.test(file)) return 'realvnc';
  if (OTHER_VNCVIEWER_DIRS.tightvnc.test(file)) return 'tightvnc';
  return 'tigervnc';
}

/** A `vncviewer` on PATH that is viewer `id`: on Windows by its directory, elsewhere to be asked. */
export function vncviewerOnPath(
  system: ViewerEnvironment,
  id: 'tigervnc' | 'realvnc' | 'tightvnc',
  extraDirs: string[] = [],
): ViewerPlace[] {
  if (system.platform !== 'win32') return onPath(system, 'vncviewer', { probe: 'identity' }, extraDirs);
  return onPath(system, 'vncviewer').filter((place) => windowsVncviewerIs(place.path) === id);
}

/** What a `--viewer` path called `vncviewer` says about being viewer `id`, by the same rules. */
export function recogniseVncviewer(
  name: string,
  file: string,
  platform: HostPlatform,
  id: 'tigervnc' | 'realvnc' | 'tightvnc',
): Omit<ViewerPlace, 'path'> | undefined {
  if (name !== 'vncviewer') return undefined;
  if (platform === 'win32') return windowsVncviewerIs(file) === id ? {} : undefined;
  return { probe: 'identity' };
}
