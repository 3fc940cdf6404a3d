import { PREFERENCE_ORDER, VIEWER_NAMES } from './catalog.js';
import {
  identifyVncviewerOutput,
  parseRemoteViewerVersion,
  versionFromBundleName,
  versionFromInfoPlist,
  versionFromVirtViewerDir,
} from './identify.js';
import { findOnPath, homeDirectory, isRunnable, pathFor, programFilesDirectories, versionedEntries } from './locate.js';
import type { ViewerCandidate, ViewerEnvironment, ViewerId } from './types.js';

/**
 * A place a viewer may be. `id` is known from the path alone; `probe` says how to ask the
 * program what it is or which version it is (never on Windows, where a GUI program may
 * answer `-help` with a dialog box, so the install directory tells instead).
 */
interface Location {
  path: string;
  id?: ViewerId;
  probe?: 'vncviewer' | 'remote-viewer';
  version?: string;
}

/** Homebrew's bin directories: a GUI-launched shell on macOS may not have them on PATH. */
const HOMEBREW_BIN = ['/opt/homebrew/bin', '/usr/local/bin'];

/** How much detection finds out; everything by default (`vconsole viewers`). */
export interface DetectOptions {
  /**
   * false: ask no program its version, only what it is when its path does not say (a
   * `vncviewer`). `open` never shows versions, and `remote-viewer --version` starts GTK:
   * 60-200 ms before the first viewer could start.
   */
  versions?: boolean;
  /** Only these kinds are of interest: places that cannot hold one are not looked at or probed. */
  only?: ReadonlySet<ViewerId>;
}

/** What a program found as `vncviewer` may turn out to be once probed. */
const PROBED_KINDS: readonly ViewerId[] = ['tigervnc', 'tightvnc', 'realvnc'];

/**
 * Finds the viewers installed on the described machine, one per kind, in the order `open`
 * prefers them on that OS. Probes run concurrently, each bounded by `runVersion`'s timeout.
 */
export async function detectViewers(system: ViewerEnvironment, options: DetectOptions = {}): Promise<ViewerCandidate[]> {
  const { only } = options;
  const wanted = (loc: Location) => !only || (loc.id ? only.has(loc.id) : PROBED_KINDS.some((id) => only.has(id)));
  const locations = locationsFor(system).filter((loc) => wanted(loc) && isRunnable(system, loc.path));
  const resolved = (await Promise.all(locations.map((loc) => resolveLocation(system, loc, 'tigervnc', options.versions !== false)))).filter((c) => !only || only.has(c.id));
  const byId = new Map<ViewerId, ViewerCandidate>();
  for (const candidate of resolved) {
    if (!byId.has(candidate.id)) byId.set(candidate.id, candidate);
  }
  const order = PREFERENCE_ORDER[system.platform];
  const rank = (id: ViewerId) => (order.includes(id) ? order.indexOf(id) : order.length);
  return [...byId.values()].sort((a, b) => rank(a.id) - rank(b.id));
}

/**
 * What an executable the user named with `--viewer PATH` is: a known viewer when its name
 * or output says so (so it gets that viewer's address form), otherwise `custom`.
 */
export async function identifyExecutable(system: ViewerEnvironment, file: string): Promise<ViewerCandidate> {
  const p = pathFor(system.platform);
  const base = p.basename(file).replace(/\.exe$/i, '');
  const lower = base.toLowerCase();
  let known: Omit<Location, 'path'> = { id: 'custom' };
  if (lower === 'remote-viewer') known = { id: 'remote-viewer', probe: 'remote-viewer' };
  else if (lower === 'xtigervncviewer' || /\/TigerVNC[^/]*\.app\//i.test(file)) known = { id: 'tigervnc', probe: 'vncviewer' };
  else if (lower === 'xtightvncviewer' || lower === 'tvnviewer') known = { id: 'tightvnc', probe: 'vncviewer' };
  else if (lower === 'chicken') known = { id: 'chicken' };
  else if (/\/VNC Viewer\.app\//.test(file)) known = { id: 'realvnc' };
  else if (system.platform === 'darwin' && file === '/usr/bin/open') known = { id: 'screen-sharing' };
  else if (lower === 'vncviewer') known = system.platform === 'win32' ? { id: windowsVncviewerKind(file) } : { probe: 'vncviewer' };
  const candidate = await resolveLocation(system, { path: file, ...known }, 'custom');
  return candidate.id === 'custom' ? { id: 'custom', name: base, path: file } : candidate;
}

/**
 * Turns a location into a candidate, probing when the location says how. A `vncviewer`
 * whose output names no viewer becomes `unrecognised`: during detection that is a
 * TigerVNC-compatible build (TurboVNC and most clones take `host::port`), for a path the
 * user named it stays their custom program.
 */
async function resolveLocation(system: ViewerEnvironment, loc: Location, unrecognised: 'tigervnc' | 'custom' = 'tigervnc', versions = true): Promise<ViewerCandidate> {
  let id = loc.id;
  let version = loc.version;
  if (loc.probe && (versions || id === undefined) && system.platform !== 'win32' && system.runVersion) {
    if (loc.probe === 'remote-viewer') {
      version ??= parseRemoteViewerVersion(await safeRun(system, loc.path, ['--version']));
    } else {
      let identity = identifyVncviewerOutput(await safeRun(system, loc.path, ['-help']));
      identity ??= identifyVncviewerOutput(await safeRun(system, loc.path, ['--version']));
      id ??= identity?.id;
      if (identity && identity.id === id) version ??= identity.version;
    }
  }
  const finalId = id ?? unrecognised;
  const name = id === undefined && finalId === 'tigervnc' ? 'vncviewer (TigerVNC-compatible)' : VIEWER_NAMES[finalId];
  const candidate: ViewerCandidate = { id: finalId, name, path: loc.path };
  if (version) candidate.version = version;
  return candidate;
}

async function safeRun(system: ViewerEnvironment, file: string, args: string[]): Promise<string> {
  try {
    return (await system.runVersion?.(file, args)) ?? '';
  } catch {
    return '';
  }
}

function locationsFor(system: ViewerEnvironment): Location[] {
  switch (system.platform) {
    case 'linux':
      return linuxLocations(system);
    case 'darwin':
      return darwinLocations(system);
    case 'win32':
      return windowsLocations(system);
  }
}

function onPath(system: ViewerEnvironment, name: string, rest: Omit<Location, 'path'>, extraDirs: string[] = []): Location[] {
  const found = findOnPath(system, name, extraDirs);
  return found ? [{ path: found, ...rest }] : [];
}

function linuxLocations(system: ViewerEnvironment): Location[] {
  return [
    ...onPath(system, 'remote-viewer', { id: 'remote-viewer', probe: 'remote-viewer' }),
    ...onPath(system, 'vncviewer', { probe: 'vncviewer' }),
    ...onPath(system, 'xtigervncviewer', { id: 'tigervnc', probe: 'vncviewer' }),
    ...onPath(system, 'xtightvncviewer', { id: 'tightvnc', probe: 'vncviewer' }),
  ];
}

function darwinLocations(system: ViewerEnvironment): Location[] {
  const p = pathFor('darwin');
  const home = homeDirectory(system);
  const appDirs = ['/Applications', ...(home ? [p.join(home, 'Applications')] : [])];
  const bundle = (dir: string, app: string, exe: string) => p.join(dir, app, 'Contents', 'MacOS', exe);
  const plistVersion = (dir: string, app: string) => {
    const text = system.readTextFile?.(p.join(dir, app, 'Contents', 'Info.plist'));
    return text ? versionFromInfoPlist(text) : undefined;
  };
  const locations: Location[] = [];
  for (const dir of appDirs) {
    // The Homebrew cask installs "TigerVNC Viewer 1.14.1.app"; other builds "TigerVNC.app".
    for (const app of ['TigerVNC.app', ...versionedEntries(system, dir, /^TigerVNC Viewer.*\.app$/i)]) {
      const version = versionFromBundleName(app) ?? plistVersion(dir, app);
      for (const exe of ['vncviewer', 'TigerVNC Viewer']) locations.push({ path: bundle(dir, app, exe), id: 'tigervnc', version });
    }
  }
  locations.push(...onPath(system, 'vncviewer', { probe: 'vncviewer' }, HOMEBREW_BIN));
  for (const dir of appDirs) {
    locations.push({ path: bundle(dir, 'Chicken.app', 'Chicken'), id: 'chicken', version: plistVersion(dir, 'Chicken.app') });
    locations.push({ path: bundle(dir, 'VNC Viewer.app', 'vncviewer'), id: 'realvnc', version: plistVersion(dir, 'VNC Viewer.app') });
  }
  locations.push(...onPath(system, 'remote-viewer', { id: 'remote-viewer', probe: 'remote-viewer' }, HOMEBREW_BIN));
  // Screen Sharing is built into macOS and opened through `open vnc://...`.
  locations.push({ path: '/usr/bin/open', id: 'screen-sharing' });
  return locations;
}

/** On Windows every vncviewer.exe is told apart by the directory it was installed in. */
function windowsVncviewerKind(file: string): ViewerId {
  if (/\\RealVNC\\/i.test(file)) return 'realvnc';
  if (/\\TightVNC\\/i.test(file)) return 'tightvnc';
  return 'tigervnc';
}

function windowsLocations(system: ViewerEnvironment): Location[] {
  const p = pathFor('win32');
  const programFiles = programFilesDirectories(system);
  const locations: Location[] = [];
  const remoteViewer = findOnPath(system, 'remote-viewer');
  if (remoteViewer) {
    const installDir = p.basename(p.dirname(p.dirname(remoteViewer)));
    locations.push({ path: remoteViewer, id: 'remote-viewer', version: versionFromVirtViewerDir(installDir) });
  }
  for (const pf of programFiles) {
    for (const dir of versionedEntries(system, pf, /^VirtViewer\b/i)) {
      locations.push({ path: p.join(pf, dir, 'bin', 'remote-viewer.exe'), id: 'remote-viewer', version: versionFromVirtViewerDir(dir) });
    }
  }
  const vncviewer = findOnPath(system, 'vncviewer');
  if (vncviewer) locations.push({ path: vncviewer, id: windowsVncviewerKind(vncviewer) });
  for (const pf of programFiles) {
    locations.push({ path: p.join(pf, 'TigerVNC', 'vncviewer.exe'), id: 'tigervnc' });
    locations.push({ path: p.join(pf, 'RealVNC', 'VNC Viewer', 'vncviewer.exe'), id: 'realvnc' });
    locations.push({ path: p.join(pf, 'TightVNC', 'tvnviewer.exe'), id: 'tightvnc' });
  }
  locations.push(...onPath(system, 'tvnviewer', { id: 'tightvnc' }));
  return locations;
}
