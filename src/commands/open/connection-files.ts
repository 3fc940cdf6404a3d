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

interface ConnectionFilesResult {
  named: ConsoleTarget[];
  selected: ConsoleTarget[];
  /** The viewers started for connection files: `open` with nothing else waits for them. */
  viewers: ViewerProcess[];
  /** Every target was such a console: `open` has no session to run. */
  onlyFiles: boolean;
  /**
   * With onlyFiles and `exitOnSignal`: what a signal does, installed before the first viewer
   * started; `open` then only waits for the viewers (waitForFileViewers).
   */
  signals?: ShutdownSignals;
}

type ShutdownSignals = ReturnType<typeof handleShutdownSignals>;

/** Which viewer opens a console of `type`: the one chosen when it shows it, else the first found that does. */
function viewerFor(type: string, choice: ViewerChoice, detected: readonly ViewerCandidate[] = []): ViewerCandidate | undefined {
  const shows = (candidate: ViewerCandidate) => (candidateShows(candidate) as readonly string[]).includes(type);
  if (choice.kind === 'viewer' && shows(choice.viewer)) return choice.viewer;
  return detected.find(shows);
}

/**
 * Opens a viewer on the connection file of every target that has one, and returns the others, for
 * sessions. With `exitOnSignal` and only such targets, a signal is handled from before the first
 * viewer starts: one arriving between a viewer's start and the wait for it would otherwise end
 * vconsole at once, the file with the one-time password left behind.
 */
export async function openConnectionFiles(
  found: { named: ConsoleTarget[]; selected: ConsoleTarget[] },
  viewer: { choice: ViewerChoice; detected: readonly ViewerCandidate[] | undefined },
  output: PageOutput,
  env: NodeJS.ProcessEnv,
  exitOnSignal?: (code: number) => void,
): Promise<ConnectionFilesResult> {
  const direct = (target: ConsoleTarget) => target.capabilities?.connectionFile !== undefined;
  const files = [...found.named, ...found.selected].filter(direct);
  const named = found.named.filter((target) => !direct(target));
  const selected = found.selected.filter((target) => !direct(target));
  const viewers: ViewerProcess[] = [];
  const onlyFiles = files.length > 0 && named.length === 0 && selected.length === 0;
  const signals =
    onlyFiles && exitOnSignal
      ? handleShutdownSignals({ close: async () => void (await Promise.all(viewers.map((started) => started.stop()))), exit: exitOnSignal })
      : undefined;
  for (const target of files) {
    const started = await openOne(target, viewer, output, env).catch((err: unknown) => {
      output.error(namingTarget(target.name, err));
      return undefined;
    });
    if (started) viewers.push(started);
  }
  if (onlyFiles && viewers.length === 0) {
    signals?.dispose();
    throw new VconsoleError('no console could be opened', { hint: 'see the error above' });
  }
  return { named, selected, viewers, onlyFiles, signals };
}

/**
 * `open` with only such consoles: waits for their viewers. A signal (Ctrl+C, a closed terminal)
 * stops them as it stops the viewers of ports (`signals`, from openConnectionFiles), and their
 * files go with them; then `exit`.
 */
export async function waitForFileViewers(
  viewers: readonly ViewerProcess[],
  signals: ShutdownSignals,
  exit: (code: number) => void,
): Promise<void> {
  try {
    await Promise.all(viewers.map((started) => started.exited));
  } finally {
    signals.dispose();
  }
  exit(0);
}

async function openOne(
  target: ConsoleTarget,
  viewer: { choice: ViewerChoice; detected: readonly ViewerCandidate[] | undefined },
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
