import { BROWSER_CONSOLE_TYPES, VIEWER_CONSOLE_TYPES } from './catalog.js';
import type { ViewerChoice } from './choose.js';
import type { ViewerCandidate, ViewerConsoleType } from './types.js';

/** What shows one kind of console: an installed viewer, or the browser page. */
export type ViewerRoute = { kind: 'native'; viewer: ViewerCandidate; extraArgs: string[] } | { kind: 'browser' };

/**
 * Which viewer `open` launches for each kind of console, and what to tell the user the first
 * time a console of a kind opens (a viewer chosen for screens that cannot show SPICE, no
 * viewer for SPICE at all, the browser standing in for a missing VNC viewer).
 */
export interface ViewerPlan {
  routes: Partial<Record<ViewerConsoleType, ViewerRoute>>;
  notices: Partial<Record<ViewerConsoleType, string>>;
}

const KIND_NAMES: Record<ViewerConsoleType, string> = { vnc: 'VNC', serial: 'serial', spice: 'SPICE' };

/** Whether `viewer` shows consoles of `type`. */
export function showsConsole(viewer: ViewerCandidate, type: ViewerConsoleType): boolean {
  return VIEWER_CONSOLE_TYPES[viewer.id].includes(type);
}

/**
 * The plan for a choice (`--viewer`, VCONSOLE_VIEWER or the preference order) over the viewers
 * found here (`detected`, in preference order):
 * - screens (VNC) go to the chosen viewer; with none found, to the browser page
 * - SPICE goes to the chosen viewer when it shows SPICE, else to the first installed one that
 *   does (remote-viewer), saying so; with none, the port is served and the user is told
 * - serial lines go to the browser only when it was asked for; otherwise they are attached in
 *   the terminal (no route)
 */
export function planViewers(choice: ViewerChoice, detected: readonly ViewerCandidate[]): ViewerPlan {
  const plan: ViewerPlan = { routes: {}, notices: {} };
  if (choice.kind === 'none') return plan;
  const spiceViewer = detected.find((v) => showsConsole(v, 'spice'));
  const routeSpice = (chosenName: string) => {
    if (spiceViewer) {
      plan.routes.spice = { kind: 'native', viewer: spiceViewer, extraArgs: [] };
      plan.notices.spice = `${chosenName} cannot show SPICE: SPICE consoles open in ${spiceViewer.name}`;
    } else {
      plan.notices.spice = `no SPICE viewer found (only remote-viewer shows SPICE): install virt-viewer, or point a SPICE client at the ports shown`;
    }
  };
  switch (choice.kind) {
    case 'viewer': {
      const { viewer, extraArgs } = choice;
      for (const type of VIEWER_CONSOLE_TYPES[viewer.id]) plan.routes[type] = { kind: 'native', viewer, extraArgs };
      if (!showsConsole(viewer, 'spice')) routeSpice(viewer.name);
      return plan;
    }
    case 'browser':
      for (const type of BROWSER_CONSOLE_TYPES) plan.routes[type] = { kind: 'browser' };
      routeSpice('the browser viewer');
      return plan;
    case 'not-found':
      plan.routes.vnc = { kind: 'browser' };
      plan.notices.vnc = 'no VNC viewer found: screens open in the browser instead (--viewer browser)';
      routeSpice('the browser viewer');
      return plan;
  }
}

/** `VNC`, `SPICE`, `serial`: for messages. */
export function consoleKindName(type: ViewerConsoleType): string {
  return KIND_NAMES[type];
}

/** A session's console type (the data path carries it as text) as the viewers know it; `vnc` when unset. */
export function viewerConsoleType(text: string | undefined): ViewerConsoleType {
  return text === 'serial' || text === 'spice' ? text : 'vnc';
}
