import { CONSOLE_KINDS, DEFAULT_CONSOLE_TYPE, consoleKind, type ConsoleKind } from '../console-kinds/index.js';
import { VconsoleError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { BROWSER_CONSOLE_TYPES, VIEWER_CONSOLE_TYPES, VIEWER_NAMES, VIEWER_OPTIONAL_TYPES, candidateShows } from './catalog.js';
import type { ViewerChoice } from './choose.js';
import type { ViewerCandidate, ViewerConsoleType, ViewerId } from './types.js';

/** What shows one kind of console: an installed viewer, or the browser page. */
export type ViewerRoute = { kind: 'native'; viewer: ViewerCandidate; extraArgs: string[] } | { kind: 'browser' };

/**
 * Which viewer `open` launches for each kind of console, and what to tell the user the first
 * time a console of a kind opens (a viewer chosen that cannot show it, no viewer for it at
 * all, the browser standing in for a missing VNC viewer).
 */
export interface ViewerPlan {
  routes: Partial<Record<ViewerConsoleType, ViewerRoute>>;
  notices: Partial<Record<ViewerConsoleType, string>>;
}

/** Whether `viewer` (this copy of it: a plugin may be missing) shows consoles of `type`. */
function showsConsole(viewer: ViewerCandidate, type: ViewerConsoleType): boolean {
  return candidateShows(viewer).includes(type);
}

/** The viewer a choice names: what it shows, how it is reached, what messages call it. */
interface Chosen {
  shows: readonly ViewerConsoleType[];
  route: ViewerRoute;
  name: string;
  /** Said the first time a console it shows opens (the browser standing in). */
  notice?: (kind: ConsoleKind) => string;
}

function chosenViewer(choice: ViewerChoice): Chosen | undefined {
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'viewer':
      return {
        shows: candidateShows(choice.viewer),
        route: { kind: 'native', viewer: choice.viewer, extraArgs: choice.extraArgs },
        name: choice.viewer.name,
      };
    case 'browser':
      return { shows: BROWSER_CONSOLE_TYPES, route: { kind: 'browser' }, name: 'the browser viewer' };
    case 'not-found':
      // Nothing installed: the browser page stands in for screens; lines stay in the terminal.
      return {
        shows: BROWSER_CONSOLE_TYPES.filter((type) => consoleKind(type)?.screen),
        route: { kind: 'browser' },
        name: 'the browser viewer',
        notice: (kind) => `no ${kind.label} viewer found: screens open in the browser instead (--viewer browser)`,
      };
  }
}

/**
 * The plan for a choice (`--viewer`, VCONSOLE_VIEWER or the preference order) over the viewers
 * found here (`detected`, in preference order), for every kind a local port carries:
 * - a kind the chosen viewer shows goes to it (with nothing installed, the browser page stands
 *   in for screens)
 * - a screen it cannot show goes to the first installed viewer that can, saying so; with none,
 *   the port is served and the user is told what would show it
 * - a line (serial) it cannot show is attached in the terminal (no route)
 * A kind only the cloud's own page carries (carriage `browser`) has no port and no route here.
 */
export function planViewers(
  choice: ViewerChoice,
  detected: readonly ViewerCandidate[],
  kinds: readonly ConsoleKind[] = CONSOLE_KINDS,
): ViewerPlan {
  const plan: ViewerPlan = { routes: {}, notices: {} };
  const chosen = chosenViewer(choice);
  if (!chosen) return plan;
  for (const kind of kinds) {
    if (kind.carriage !== 'port') continue;
    const type = kind.id as ViewerConsoleType;
    if (chosen.shows.includes(type)) {
      plan.routes[type] = chosen.route;
      if (chosen.notice) plan.notices[type] = chosen.notice(kind);
      continue;
    }
    if (!kind.screen) continue;
    const other = detected.find((viewer) => showsConsole(viewer, type));
    if (other) {
      plan.routes[type] = { kind: 'native', viewer: other, extraArgs: [] };
      plan.notices[type] = `${chosen.name} cannot show ${kind.label}: ${kind.label} consoles open in ${other.name}`;
    } else {
      plan.notices[type] = noViewerNotice(kind);
    }
  }
  return plan;
}

/**
 * `no SPICE viewer found (only remote-viewer and Remmina with its SPICE plugin show SPICE): install
 * virt-viewer or remmina-plugin-spice, ...`, from the viewers' lists: those every copy of which
 * shows the kind, then those that show it with something added (`showsWith`).
 */
function noViewerNotice(kind: ConsoleKind): string {
  const type = kind.id as ViewerConsoleType;
  const ids = (Object.keys(VIEWER_CONSOLE_TYPES) as ViewerId[]).filter((id) => id !== 'custom');
  const names = [
    ...ids.filter((id) => VIEWER_CONSOLE_TYPES[id].includes(type)).map((id) => programAndPackage(VIEWER_NAMES[id])),
    ...ids.flatMap((id) => {
      const added = VIEWER_CONSOLE_TYPES[id].includes(type) ? undefined : VIEWER_OPTIONAL_TYPES[id][type];
      return added ? [{ program: `${programAndPackage(VIEWER_NAMES[id]).program} with ${added.needs}`, install: added.install }] : [];
    }),
  ];
  const point = `point a ${kind.label} client at the ports shown`;
  if (names.length === 0) return `no ${kind.label} viewer found (vconsole knows none that shows ${kind.label}): ${point}`;
  const programs = names.map((n) => n.program);
  const only = `only ${programs.join(' and ')} show${programs.length === 1 ? 's' : ''} ${kind.label}`;
  return `no ${kind.label} viewer found (${only}): install ${names.map((n) => n.install).join(' or ')}, or ${point}`;
}

/** A viewer's name says what ships it in parentheses (`remote-viewer (virt-viewer)`); a bare name is both. */
function programAndPackage(name: string): { program: string; install: string } {
  const match = /^(.+) \((.+)\)$/.exec(name);
  return match ? { program: match[1], install: match[2] } : { program: name, install: name };
}

/**
 * A session's console type (the data path carries it as text) as the viewers know it; the
 * default kind (VNC) when unset. A type no kind has is an error: it is never shown as VNC.
 */
export function viewerConsoleType(text: string | undefined): ViewerConsoleType {
  if (text === undefined) return DEFAULT_CONSOLE_TYPE;
  const kind = consoleKind(text);
  if (!kind) throw new VconsoleError(`unknown console type "${echoInput(text)}": no viewer is known to show it`);
  return kind.id as ViewerConsoleType;
}
