// `open` for consoles their viewer reaches by itself through the platform's own proxy (Proxmox
// VE's SPICE proxy): no session, no local port; the provider gives a connection file's settings,
// a private file is written and the viewer (one that shows the kind) opens it.
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError } from '../../errors.js';
import { DIAL_TIMEOUT_MS } from '../../limits.js';
import { handleShutdownSignals } from '../../proxy/index.js';
import type { ConsoleTarget } from '../../targets/index.js';
import { terminalSafe } from '../../text/terminal-text.js';
import {
  buildViewerCommand,
  candidateShows,
  describeViewerExit,
  launchViewer,
  removeConnectionFile,
  type ViewerCandidate,
  type ViewerChoice,
  type ViewerProcess,
  writeConnectionFile,
} from '../../viewers/index.js';
import { namingTarget } from '../command-io.js';
import type { PageOutput } from './browser-only.js';

/** The targets found, split into those that open from a connection file and those for sessions. */
interface SplitTargets {
  /** Consoles their viewer reaches by itself: a connection file each, no session. */
  files: ConsoleTarget[];
  named: ConsoleTarget[];
  selected: ConsoleTarget[];
  /** Every target was such a console: `open` has no session to run. */
  onlyFiles: boolean;
}

type ViewerSetting = { choice: ViewerChoice; detected: readonly ViewerCandidate[] | undefined };

/** Which viewer opens a console of `type`: the one chosen when it shows it, else the first found that does. */
function viewerFor(type: string, choice: ViewerChoice, detected: readonly ViewerCandidate[] = []): ViewerCandidate | undefined {
  const shows = (candidate: ViewerCandidate) => (candidateShows(candidate) as readonly string[]).includes(type);
  if (choice.kind === 'viewer' && shows(choice.viewer)) return choice.viewer;
  return detected.find(shows);
}

/** Splits the targets found: a console with a connection file opens from it, the others get sessions. */
export function splitConnectionFiles(found: { named: ConsoleTarget[]; selected: ConsoleTarget[] }): SplitTargets {
  const direct = (target: ConsoleTarget) => target.capabilities?.connectionFile !== undefined;
  const files = [...found.named, ...found.selected].filter(direct);
  const named = found.named.filter((target) => !direct(target));
  const selected = found.selected.filter((target) => !direct(target));
  return { files, named, selected, onlyFiles: files.length > 0 && named.length === 0 && selected.length === 0 };
}

/**
 * Opens a viewer on the connection file of each of `files`, each added to `into` as it starts:
 * whoever stops `into`'s viewers on a signal (installed before this is called) reaches every one
 * started, so none outlives vconsole with its file and one-time password. One failing is said
 * and the others go on.
 */
export async function startFileViewers(
  files: readonly ConsoleTarget[],
  viewer: ViewerSetting,
  output: PageOutput,
  env: NodeJS.ProcessEnv,
  into: ViewerProcess[],
): Promise<void> {
  for (const target of files) {
    const started = await openOne(target, viewer, output, env).catch((err: unknown) => {
      output.error(namingTarget(target.name, err));
      return undefined;
    });
    if (started) into.push(started);
  }
}

/**
 * `open` with only such consoles: a signal (Ctrl+C, a closed terminal) is handled from before
 * the first viewer starts and stops the viewers, their files going with them; otherwise open
 * waits for the viewers, then `exit`. A signal between a viewer's start and the wait would
 * otherwise end vconsole at once, the file with the one-time password left behind.
 */
export async function openOnlyConnectionFiles(
  files: readonly ConsoleTarget[],
  viewer: ViewerSetting,
  output: PageOutput,
  env: NodeJS.ProcessEnv,
  exit: (code: number) => void,
): Promise<void> {
  const viewers: ViewerProcess[] = [];
  const signals = handleShutdownSignals({ close: async () => void (await Promise.all(viewers.map((started) => started.stop()))), exit });
  try {
    await startFileViewers(files, viewer, output, env, viewers);
    if (viewers.length === 0) throw new VconsoleError('no console could be opened', { hint: 'see the error above' });
    await Promise.all(viewers.map((started) => started.exited));
  } finally {
    signals.dispose();
  }
  exit(0);
}

async function openOne(
  target: ConsoleTarget,
  viewer: ViewerSetting,
  output: PageOutput,
  env: NodeJS.ProcessEnv,
): Promise<ViewerProcess | undefined> {
  const label = consoleKind(target.facts.consoleType)?.label ?? target.facts.consoleType;
  if (viewer.choice.kind === 'none') {
    output.say(`[${terminalSafe(target.name)}] no viewer launched (--viewer none): its ${label} console has no local port to point one at`);
    return undefined;
  }
  const candidate = viewerFor(target.facts.consoleType, viewer.choice, viewer.detected);
  if (!candidate) throw new VconsoleError(`no viewer here shows ${label} consoles`, { hint: 'install remote-viewer (virt-viewer)' });
  const settingsOf = target.capabilities?.connectionFile;
  if (!settingsOf) return undefined;
  const settings = await settingsOf(AbortSignal.timeout(DIAL_TIMEOUT_MS));
  const file = await writeConnectionFile(settings, target.name);
  const extraArgs = viewer.choice.kind === 'viewer' && viewer.choice.viewer === candidate ? viewer.choice.extraArgs : [];
  const command = buildViewerCommand(candidate, {
    host: '',
    port: 0,
    consoleType: target.facts.consoleType,
    connectionFile: file,
    extraArgs,
  });
  const launched = launchViewer(command, { env });
  launched.once('exit', (exit) => {
    // It holds a one-time password: gone with the viewer that read it (or with vconsole, whichever ends first).
    removeConnectionFile(file);
    if (exit.outcome === 'failed') output.error(namingTarget(target.name, new VconsoleError(describeViewerExit(exit, candidate.name))));
  });
  output.say(`[${terminalSafe(target.name)}] viewer: ${candidate.name} opened its ${label} connection file`);
  return launched;
}
