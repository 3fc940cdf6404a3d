import {
  BROWSER_CONSOLE_TYPES,
  buildViewerCommand,
  candidateShows,
  chooseViewer,
  detectViewers,
  formatCommandLine,
  type HostPlatform,
  installHint,
  lookedFor,
  PLATFORM_NAMES,
  PREFERENCE_ORDER,
  systemViewerEnvironment,
  VIEWER_CHOICES,
  VIEWER_CONSOLE_TYPES,
  VIEWER_OPTIONAL_TYPES,
  viewerArgsNotice,
  type ViewerCandidate,
  type ViewerChoice,
  type ViewerCommand,
  type ViewerEnvironment,
  type ViewerId,
} from '../viewers/index.js';
import { terminalSafe } from '../text/terminal-text.js';
import { alignColumns } from './text-table.js';
import { documentText, outputFormat, type OutputFlags } from './output-format.js';
import type { CommandFlagsIn } from '../flags/command-flags.js';

export type ViewersCommandOptions = OutputFlags & CommandFlagsIn<'viewers'>;

/** The example `vconsole viewers` shows a command line for. */
const EXAMPLE_TARGET = { host: '127.0.0.1', port: 5900, title: 'VM' } as const;

/** The `--json` document. */
interface ViewersReport {
  os: HostPlatform;
  /** Each viewer found, with the console types it shows (`vnc`, `spice`). */
  viewers: { id: string; name: string; path: string; version: string | null; consoleTypes: string[] }[];
  /** The browser viewer (`--viewer browser`, and the fallback when none is found) shows these. */
  browser: { consoleTypes: string[] };
  selected: { id: string; name: string; path: string; command: string[] } | null;
  lookedFor: string[];
  install: string;
}

/**
 * `vconsole viewers`: what is installed, which one `open` would launch and how. It succeeds
 * also when none is found: that is an answer (a fresh jump host has none), not a failure, and
 * `open` still serves every port there. A bad `--viewer` throws UsageError / VconsoleError for
 * the CLI edge to print.
 */
export async function runViewersCommand(
  options: ViewersCommandOptions,
  io: { stdout: NodeJS.WritableStream },
  system: ViewerEnvironment = systemViewerEnvironment(),
): Promise<void> {
  const format = outputFormat(options);
  const detected = await detectViewers(system);
  const choice = await chooseViewer(detected, { viewer: options.viewer, viewerArgs: options.viewerArg }, system);
  const report = buildReport(system.platform, detected, choice);
  const argsNotice = viewerArgsNotice(choice, options.viewerArg);
  if (typeof format === 'object') return void io.stdout.write(format.one(report));
  switch (format) {
    case 'json':
    case 'yaml':
      return void io.stdout.write(await documentText(report, format));
    case 'name':
      // The ids `--viewer` takes, one per viewer found (none found: nothing, as kubectl's -o name).
      return void io.stdout.write([...new Set(report.viewers.map((v) => v.id))].map((id) => `${id}\n`).join(''));
    case 'wide':
    case 'table':
      // The text shows every column there is already: wide is the same.
      return void io.stdout.write(renderText(report, choice, system.platform, argsNotice));
  }
}

function buildReport(platform: HostPlatform, detected: ViewerCandidate[], choice: ViewerChoice): ViewersReport {
  let selected: ViewersReport['selected'] = null;
  if (choice.kind === 'viewer') {
    const { viewer } = choice;
    const command = exampleCommand(choice);
    selected = { id: viewer.id, name: viewer.name, path: viewer.path, command: [command.command, ...command.args] };
  }
  return {
    os: platform,
    viewers: detected.map((v) => ({
      id: v.id,
      name: v.name,
      path: v.path,
      version: v.version ?? null,
      // What this copy shows (Remmina's SPICE depends on its plugin), not what the viewer may.
      consoleTypes: [...candidateShows(v)],
    })),
    browser: { consoleTypes: [...BROWSER_CONSOLE_TYPES] },
    selected,
    lookedFor: lookedFor(platform),
    install: installHint(platform),
  };
}

/** The command line the chosen viewer would run for EXAMPLE_TARGET. */
function exampleCommand(choice: Extract<ViewerChoice, { kind: 'viewer' }>): ViewerCommand {
  return buildViewerCommand(choice.viewer, { ...EXAMPLE_TARGET, extraArgs: choice.extraArgs });
}

/**
 * `only remote-viewer shows SPICE (and remmina with its SPICE plugin)`: the viewers a name can
 * pick that show SPICE, from the catalogue, then those that show it with something added.
 */
function spiceViewersSentence(): string {
  const named = VIEWER_CHOICES.filter((id): id is ViewerId => id in VIEWER_CONSOLE_TYPES);
  const ids = named.filter((id) => VIEWER_CONSOLE_TYPES[id].includes('spice'));
  const added = named.flatMap((id) => {
    const what = VIEWER_CONSOLE_TYPES[id].includes('spice') ? undefined : VIEWER_OPTIONAL_TYPES[id].spice;
    return what ? [`${id} with ${what.needs}`] : [];
  });
  return `only ${ids.join(' and ')} ${ids.length === 1 ? 'shows' : 'show'} SPICE${added.length ? ` (and ${added.join(' and ')})` : ''}`;
}

function renderText(report: ViewersReport, choice: ViewerChoice, platform: HostPlatform, argsNotice: string | undefined): string {
  const lines = [`OS: ${PLATFORM_NAMES[platform]} (${platform})`];
  if (report.viewers.length > 0) {
    lines.push('Viewers found, in the order `open` prefers them (with the consoles each shows):');
    lines.push(
      ...alignColumns(report.viewers.map((v) => [v.id, v.name, v.version ?? '-', v.consoleTypes.join(','), v.path])).map((line) =>
        `  ${line}`.trimEnd(),
      ),
    );
  } else {
    lines.push('No VNC viewer found.');
    lines.push('Looked for:', ...report.lookedFor.map((what) => `  ${what}`));
    lines.push(`To fix: ${report.install}.`);
  }
  lines.push(
    `The browser viewer (--viewer browser) shows ${report.browser.consoleTypes.join(' and ')} consoles; ${spiceViewersSentence()}.`,
  );
  lines.push('');
  switch (choice.kind) {
    case 'viewer': {
      const why =
        choice.source === 'flag'
          ? 'chosen with --viewer'
          : choice.source === 'environment'
            ? 'chosen with VCONSOLE_VIEWER'
            : `first found in the ${PLATFORM_NAMES[platform]} preference order ${PREFERENCE_ORDER[platform].join(', ')}; change it with --viewer or VCONSOLE_VIEWER`;
      const command = exampleCommand(choice);
      lines.push(`open would use: ${choice.viewer.name} (${why})`);
      lines.push(`For ${EXAMPLE_TARGET.host}:${EXAMPLE_TARGET.port} titled ${EXAMPLE_TARGET.title} it would run:`);
      lines.push(`  ${formatCommandLine(command, platform)}`);
      break;
    }
    case 'none':
      lines.push(
        `open would launch no viewer (${choice.source === 'flag' ? '--viewer' : 'VCONSOLE_VIEWER'} none); connect one to the local port it prints.`,
      );
      break;
    case 'browser':
      lines.push(
        `open would show screens and serial consoles in a browser tab (${choice.source === 'flag' ? '--viewer' : 'VCONSOLE_VIEWER'} browser).`,
      );
      break;
    case 'not-found':
      lines.push('open would find no viewer to launch and show screens in a browser tab; install one, or name one with --viewer PATH.');
      break;
  }
  if (argsNotice) lines.push(argsNotice);
  // Paths come from the file system and --viewer: shown, never obeyed by the terminal.
  return `${lines.map(terminalSafe).join('\n')}\n`;
}
