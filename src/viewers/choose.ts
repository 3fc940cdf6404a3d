// Which viewer `open` and `vconsole viewers` use: what `--viewer` / VCONSOLE_VIEWER named (a
// descriptor's id, `browser`, `none` or a path), else the first found in the OS's preference order.
import { CONSOLE_KINDS, type ConsoleKind } from '../console-kinds/index.js';
import { UsageError, VconsoleError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import {
  PLATFORM_NAMES,
  VIEWER_ALIASES,
  VIEWER_CHOICES,
  VIEWER_CONSOLE_TYPES,
  VIEWER_NAMES,
  VIEWER_OPTIONAL_TYPES,
  installHint,
  lookedFor,
} from './catalog.js';
import { detectViewers, identifyExecutable } from './detect.js';
import { homeDirectory, isRunnable, pathFor } from './locate.js';
import type { ViewerCandidate, ViewerEnvironment, ViewerId } from './types.js';

/** What the user asked for: `--viewer NAME|PATH` and `--viewer-arg ARG...`. */
interface ViewerRequest {
  viewer?: string;
  viewerArgs?: string[];
}

/** Where the choice came from, for messages. */
type ViewerChoiceSource = 'flag' | 'environment' | 'preference';

export type ViewerChoice =
  /** Launch `viewer` with `extraArgs` before the address. */
  | { kind: 'viewer'; viewer: ViewerCandidate; source: ViewerChoiceSource; extraArgs: string[] }
  /** `--viewer none`: serve the port, launch nothing. */
  | { kind: 'none'; source: Exclude<ViewerChoiceSource, 'preference'> }
  /** `--viewer browser`: vconsole's own page in a browser tab, for screens and serial lines. */
  | { kind: 'browser'; source: Exclude<ViewerChoiceSource, 'preference'> }
  /** Nothing requested and nothing installed. */
  | { kind: 'not-found' };

/** What `--viewer` / VCONSOLE_VIEWER named, before looking at the machine. */
type ParsedViewerRequest =
  | { kind: 'auto' }
  | { kind: 'none'; source: 'flag' | 'environment' }
  | { kind: 'browser'; source: 'flag' | 'environment' }
  | { kind: 'named'; id: Exclude<ViewerId, 'custom'>; source: 'flag' | 'environment'; raw: string }
  /** An executable name several viewers install (`vncviewer`): whichever of them is found. */
  | { kind: 'any-of'; ids: readonly ViewerId[]; source: 'flag' | 'environment'; raw: string }
  | { kind: 'path'; path: string; source: 'flag' | 'environment' };

const SOURCE_LABEL = { flag: '--viewer', environment: 'VCONSOLE_VIEWER' } as const;

/**
 * Reads `--viewer` (which wins) or VCONSOLE_VIEWER: a viewer name or alias (any case), `none`, or
 * a path (anything holding a path separator or starting with `.` or `~`). Throws
 * UsageError for any other word, listing the valid names.
 */
export function parseViewerRequest(request: ViewerRequest, system: ViewerEnvironment): ParsedViewerRequest {
  const fromFlag = request.viewer?.trim();
  const fromEnv = system.env.VCONSOLE_VIEWER?.trim();
  const raw = fromFlag || fromEnv;
  if (!raw) return { kind: 'auto' };
  const source = fromFlag ? 'flag' : 'environment';
  const word = raw.toLowerCase();
  if (word === 'none') return { kind: 'none', source };
  if (word === 'browser') return { kind: 'browser', source };
  if (VIEWER_CHOICES.includes(word)) {
    return { kind: 'named', id: word as Exclude<ViewerId, 'custom'>, source, raw };
  }
  const meant = VIEWER_ALIASES.get(word);
  if (meant?.length === 1) return { kind: 'named', id: meant[0] as Exclude<ViewerId, 'custom'>, source, raw };
  if (meant) return { kind: 'any-of', ids: meant, source, raw };
  const separators = system.platform === 'win32' ? /[\\/]/ : /\//;
  if (separators.test(raw) || raw.startsWith('.') || raw.startsWith('~')) return { kind: 'path', path: raw, source };
  throw new UsageError(
    `${SOURCE_LABEL[source]} ${echoInput(raw)}: unknown viewer`,
    `use one of ${VIEWER_CHOICES.join(', ')}, or the path of an executable`,
  );
}

/** Absolute form of a `--viewer` path: `~` is the home directory, relative is from cwd. */
function resolveViewerPath(system: ViewerEnvironment, raw: string): string {
  const p = pathFor(system.platform);
  const home = homeDirectory(system);
  const expanded = home && (raw === '~' || raw.startsWith('~/') || raw.startsWith('~\\')) ? p.join(home, raw.slice(1)) : raw;
  return p.resolve(system.cwd ?? (system.platform === 'win32' ? 'C:\\' : '/'), expanded);
}

/**
 * Picks the viewer `open` launches: the one requested with `--viewer`/VCONSOLE_VIEWER, else
 * the first of `detected` (already in preference order). Throws UsageError for an unknown
 * name or a path that is not an executable file, and VconsoleError (exit 1, with an install
 * hint) when a named viewer is not installed.
 */
export async function chooseViewer(detected: ViewerCandidate[], request: ViewerRequest, system: ViewerEnvironment): Promise<ViewerChoice> {
  return choose(parseViewerRequest(request, system), detected, request.viewerArgs ?? [], system);
}

async function choose(
  parsed: ParsedViewerRequest,
  detected: ViewerCandidate[],
  extraArgs: string[],
  system: ViewerEnvironment,
): Promise<ViewerChoice> {
  switch (parsed.kind) {
    case 'none':
      return { kind: 'none', source: parsed.source };
    case 'browser':
      return { kind: 'browser', source: parsed.source };
    case 'auto': {
      const first = detected[0];
      return first ? { kind: 'viewer', viewer: first, source: 'preference', extraArgs } : { kind: 'not-found' };
    }
    case 'named':
    case 'any-of': {
      const ids: readonly ViewerId[] = parsed.kind === 'named' ? [parsed.id] : parsed.ids;
      const found = detected.find((v) => ids.includes(v.id));
      if (found) return { kind: 'viewer', viewer: found, source: parsed.source, extraArgs };
      const names = ids.map((id) => VIEWER_NAMES[id]).join(' or ');
      throw new VconsoleError(
        `${SOURCE_LABEL[parsed.source]} ${echoInput(parsed.raw)}: ${names} was not found on this ${PLATFORM_NAMES[system.platform]} machine (looked for ${lookedFor(system.platform).join('; ')})`,
        { hint: installHint(system.platform) },
      );
    }
    case 'path': {
      const file = resolveViewerPath(system, parsed.path);
      const asked = `${SOURCE_LABEL[parsed.source]} ${echoInput(parsed.path)}`;
      if (!system.fileExists(file)) throw new UsageError(`${asked}: no such file`, 'give the path of a VNC viewer executable');
      if (!isRunnable(system, file))
        throw new UsageError(`${asked}: not an executable file`, 'make it executable (chmod +x) or name another viewer');
      return { kind: 'viewer', viewer: await identifyExecutable(system, file), source: parsed.source, extraArgs };
    }
  }
}

/**
 * The viewers worth looking for beside `named`: those that show a screen a local port carries
 * and none of `named` shows in every copy (remote-viewer beside TigerVNC, for SPICE), since the
 * plan sends such a screen to the first installed viewer that can (viewer-plan.ts). A viewer
 * that shows it in some copies (Remmina, with its SPICE plugin) is looked for too, and one of
 * those named does not stop the search: detection says which copy is found (`optional`). From
 * the kinds and the viewers' lists, so a new kind with a viewer that shows it needs no edit here.
 */
export function companionViewers(
  named: readonly ViewerId[],
  kinds: readonly ConsoleKind[] = CONSOLE_KINDS,
  shows: Readonly<Partial<Record<ViewerId, readonly string[]>>> = VIEWER_CONSOLE_TYPES,
  optional: Readonly<Partial<Record<ViewerId, Readonly<Partial<Record<string, unknown>>>>>> = VIEWER_OPTIONAL_TYPES,
): ViewerId[] {
  const mayShow = (id: ViewerId, kind: ConsoleKind) => shows[id]?.includes(kind.id) || optional[id]?.[kind.id] !== undefined;
  const unshown = kinds.filter((kind) => kind.carriage === 'port' && kind.screen && !named.some((id) => shows[id]?.includes(kind.id)));
  return (Object.keys(shows) as ViewerId[]).filter((id) => !named.includes(id) && unshown.some((kind) => mayShow(id, kind)));
}

/**
 * Detection and choice in one step, for `open`. Skips detection when the request does not
 * need it (`none`, or a path), so naming a viewer costs no probes; asks no versions (`open`
 * shows none); a named viewer is looked for with the viewers of the screens it does not show.
 */
export async function selectViewer(
  request: ViewerRequest,
  system: ViewerEnvironment,
): Promise<{ detected: ViewerCandidate[] | undefined; choice: ViewerChoice }> {
  const parsed = parseViewerRequest(request, system);
  const named: readonly ViewerId[] | undefined = parsed.kind === 'named' ? [parsed.id] : parsed.kind === 'any-of' ? parsed.ids : undefined;
  const only = named ? new Set<ViewerId>([...named, ...companionViewers(named)]) : undefined;
  // The browser shows no SPICE: remote-viewer is looked for to show those.
  const detected =
    parsed.kind === 'auto' || named || parsed.kind === 'browser' ? await detectViewers(system, { versions: false, only }) : undefined;
  return { detected, choice: await choose(parsed, detected ?? [], request.viewerArgs ?? [], system) };
}

/**
 * One line saying where `--viewer-arg` values go when `--viewer` did not name the viewer: to
 * the one VCONSOLE_VIEWER named or the first one found (which differs between machines), or
 * nowhere when no viewer is launched. Undefined without values, or when `--viewer` named a viewer.
 */
export function viewerArgsNotice(choice: ViewerChoice, viewerArgs: string[] | undefined): string | undefined {
  if (!viewerArgs?.length) return undefined;
  const values = `--viewer-arg ${echoInput(viewerArgs.join(' '))}`;
  switch (choice.kind) {
    case 'viewer': {
      const receiver = `${choice.viewer.name} (${echoInput(choice.viewer.path)})`;
      if (choice.source === 'flag') return undefined;
      if (choice.source === 'environment') return `${values} goes to ${receiver}, the viewer VCONSOLE_VIEWER names`;
      return `${values} goes to ${receiver}, the first viewer found here; name the viewer it is meant for with --viewer`;
    }
    case 'none':
      return `${values} is not used: no viewer is launched (${SOURCE_LABEL[choice.source]} none)`;
    case 'browser':
      return `${values} is not used: the browser viewer takes no arguments`;
    case 'not-found':
      return `${values} is not used: no viewer was found to launch`;
  }
}
