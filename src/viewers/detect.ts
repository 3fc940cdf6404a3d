// Finds the viewers installed on a machine (described by an injected ViewerEnvironment), and
// tells what a `--viewer PATH` is, by looping over the descriptors: their places, what a path
// says about itself, and what a program answers when asked.
import { PREFERENCE_ORDER, VIEWER_NAMES } from './catalog.js';
import { VIEWER_DESCRIPTORS, type ViewerDescriptor, type ViewerId, type ViewerPlace } from './descriptors/index.js';
import { identifyOutput } from './identify.js';
import { isRunnable, pathFor } from './locate.js';
import type { ViewerCandidate, ViewerEnvironment } from './types.js';

type Descriptor = ViewerDescriptor<ViewerId>;

/**
 * One path to look at: `claimants` are the viewers that listed it. A path listed with probe
 * `identity` (a `vncviewer`) may be any of them; otherwise it is the first one's.
 */
interface Location extends ViewerPlace {
  claimants: [Descriptor, ...Descriptor[]];
}

/** How much detection finds out; everything by default (`vconsole viewers`). */
interface DetectOptions {
  /**
   * false: ask no program its version, only what it is when its path does not say (a
   * `vncviewer`). `open` never shows versions, and `remote-viewer --version` starts GTK:
   * 60-200 ms before the first viewer could start.
   */
  versions?: boolean;
  /** Only these kinds are of interest: places that cannot hold one are not looked at or probed. */
  only?: ReadonlySet<ViewerId>;
}

/** Every place the descriptors list on this OS, one location per path, in registry order. */
function locationsFor(system: ViewerEnvironment): Location[] {
  const byPath = new Map<string, Location>();
  for (const descriptor of VIEWER_DESCRIPTORS as readonly Descriptor[]) {
    for (const place of descriptor.places(system)) {
      const known = byPath.get(place.path);
      if (!known) byPath.set(place.path, { ...place, claimants: [descriptor] });
      else if (known.probe === 'identity' && place.probe === 'identity') known.claimants.push(descriptor);
    }
  }
  return [...byPath.values()];
}

/**
 * Finds the viewers installed on the described machine, one per kind, in the order `open`
 * prefers them on that OS. Probes run concurrently, each bounded by `runVersion`'s timeout.
 */
export async function detectViewers(system: ViewerEnvironment, options: DetectOptions = {}): Promise<ViewerCandidate[]> {
  const { only } = options;
  const wanted = (loc: Location) => !only || loc.claimants.some((d) => only.has(d.id));
  const locations = locationsFor(system).filter((loc) => wanted(loc) && isRunnable(system, loc.path));
  const resolved = (
    await Promise.all(locations.map((loc) => resolveLocation(system, loc, 'compatible', options.versions !== false)))
  ).filter((c) => !only || only.has(c.id));
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
 * or output says so (so it gets that viewer's address form), otherwise `custom`. A descriptor
 * sure of the path wins over those to which it is one of several possibilities.
 */
export async function identifyExecutable(system: ViewerEnvironment, file: string): Promise<ViewerCandidate> {
  const base = pathFor(system.platform)
    .basename(file)
    .replace(/\.exe$/i, '');
  const name = base.toLowerCase();
  const claims = (VIEWER_DESCRIPTORS as readonly Descriptor[]).flatMap((d) => {
    const facts = d.recognise?.(name, file, system.platform);
    return facts ? [{ descriptor: d, facts }] : [];
  });
  const sure = claims.find((c) => c.facts.probe !== 'identity');
  const location: Location | undefined = sure
    ? { path: file, ...sure.facts, claimants: [sure.descriptor] }
    : claims[0]
      ? { path: file, probe: 'identity', claimants: [claims[0].descriptor, ...claims.slice(1).map((c) => c.descriptor)] }
      : undefined;
  const candidate = location ? await resolveLocation(system, location, 'custom') : undefined;
  return candidate && candidate.id !== 'custom' ? candidate : { id: 'custom', name: base, path: file };
}

/**
 * Turns a location into a candidate, probing when the location says how. A `vncviewer`
 * whose output names none of its claimants is, during detection, compatible with the first
 * (TurboVNC and most clones take TigerVNC's `host::port`); for a path the user named it stays
 * their custom program.
 */
async function resolveLocation(
  system: ViewerEnvironment,
  loc: Location,
  unrecognised: 'compatible' | 'custom',
  versions = true,
): Promise<ViewerCandidate> {
  const canProbe = loc.probe !== undefined && system.platform !== 'win32' && system.runVersion !== undefined;
  const [first] = loc.claimants;
  let id: ViewerId | undefined = loc.probe === 'identity' ? undefined : first.id;
  let version = loc.version;
  if (canProbe && (versions || id === undefined)) {
    const identity = await identifyOutput((args) => safeRun(system, loc.path, args), id === undefined ? loc.claimants : [first]);
    id ??= identity?.id;
    if (identity && identity.id === id) version ??= identity.version;
  }
  if (id === undefined && unrecognised === 'custom') return { id: 'custom', name: VIEWER_NAMES.custom, path: loc.path };
  const name = id === undefined ? `${pathFor(system.platform).basename(loc.path)} (${first.name}-compatible)` : VIEWER_NAMES[id];
  const candidate: ViewerCandidate = { id: id ?? first.id, name, path: loc.path };
  if (version) candidate.version = version;
  // What this copy shows, where copies differ (a plugin installed beside it or bundled).
  const shows = loc.claimants.find((d) => d.id === candidate.id)?.showsHere?.(system, loc.path);
  if (shows) candidate.shows = [...shows];
  return candidate;
}

async function safeRun(system: ViewerEnvironment, file: string, args: readonly string[]): Promise<string> {
  try {
    return (await system.runVersion?.(file, [...args])) ?? '';
  } catch {
    return '';
  }
}
