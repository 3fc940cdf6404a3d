// `vconsole open`'s entry: reads the flags, picks the targets and the viewer, and hands them to
// one OpenRun (run.ts), the object that owns everything open starts until q or a signal ends it.
import { type VconsoleConfig, expandWorkspace } from '../../config/index.js';
import { DEFAULT_ESCAPE, parseEscapeKey } from '../../terminal/escape-key.js';
import { displayHere, selectViewer, systemViewerEnvironment } from '../../viewers/index.js';
import type { CommandIo } from '../command-io.js';
import { consecutivePorts } from '../flags.js';
import { OPEN_SERVING, servingPlan } from '../serving-plan.js';
import { listenAddressFrom, targetOptionsFrom } from '../target-options.js';
import { selectTargets } from '../target-selection.js';
import { closingLinkOnFailure, selectViaTargets, viaLinkFrom } from '../via.js';
import type { ViaLink } from '../../via/index.js';
import { openBrowserPages, pageOutput } from './browser-only.js';
import { openOnlyConnectionFiles, splitConnectionFiles, startFileViewers } from './connection-files.js';
import { confirmOpenCount } from './count.js';
import { thumbnailModeFrom } from './grid-flags.js';
import { OpenRun } from './run.js';
import type { OpenFlags } from './settings.js';

/**
 * `vconsole open`: a proxy per console and the chosen viewer launched for each, shown in the
 * TUI on a terminal, as plain lines otherwise. One failing target does not stop the others; a
 * console named twice gets one session and a notice. Resolves once every target has started
 * or failed (the process then runs until q or a signal ends it through io.exit); rejects
 * without a terminal when no target could be opened.
 */
export async function runOpenCommand(inputs: string[], flags: OpenFlags, config: VconsoleConfig, io: CommandIo): Promise<void> {
  ({ inputs, flags } = expandWorkspace(inputs, flags, config));
  // The link's lines (connection lost, back again) go to the TUI's notice line once it shows.
  const sayVia = { to: (line: string) => void io.stderr.write(`${line}\n`) };
  const via = viaLinkFrom(flags, config, (line) => sayVia.to(line));
  await closingLinkOnFailure(via, () => openConsoles(inputs, flags, config, io, { via, sayVia }));
}

/** What runOpenCommand does once the workspace is expanded and the --via link (if any) made. */
async function openConsoles(
  inputs: string[],
  flags: OpenFlags,
  config: VconsoleConfig,
  io: CommandIo,
  { via, sayVia }: { via: ViaLink | undefined; sayVia: { to: (line: string) => void } },
): Promise<void> {
  const escapeKey = flags.escape === undefined ? DEFAULT_ESCAPE : parseEscapeKey(flags.escape);
  const thumbnailMode = thumbnailModeFrom(flags, process.env);
  const useTui = flags.tui !== false && Boolean(process.stdout.isTTY && process.stdin.isTTY);
  // The TUI will hold the terminal while targets are checked: a provider asks nothing then (it refuses, saying what to do).
  const options = { ...targetOptionsFrom(flags, config), ...(useTui ? { questions: 'none' as const } : {}) };
  const found = via
    ? await selectViaTargets(via, inputs, flags, { follow: flags.follow })
    : await selectTargets(inputs, flags, options, config, { follow: flags.follow });
  const targets = [...found.named, ...found.selected];
  // Declined at the terminal: nothing was opened, nothing is left to close.
  if (!(await confirmOpenCount(targets.length, flags, { stdin: process.stdin, stderr: process.stderr }))) return io.exit(0);
  // Consoles only a browser shows (Nova's RDP, WebMKS) open as the cloud's pages, without a port.
  const { named, selected, onlyPages } = await openBrowserPages(found, pageOutput(io, flags.tui));
  if (onlyPages && !flags.follow) return io.exit(0);
  const ports = consecutivePorts(flags.port, targets.length);
  const listen = listenAddressFrom(flags.listen, config);
  const plan = await servingPlan(
    flags,
    { profile: OPEN_SERVING, listen, configShare: config.defaults.share, targets },
    (text) => io.stderr.write(`${text}\n`),
    // A SPICE console passing the hub unshared is news only to who asked for sharing by name.
    { notesUnshared: flags.share === true },
  );
  const system = systemViewerEnvironment();
  const viewerEnv = { ...process.env };
  const viewerFlag = flags.viewer ?? (system.env.VCONSOLE_VIEWER ? undefined : config.defaults.viewer);
  const { choice, detected } = await selectViewer({ viewer: viewerFlag, viewerArgs: flags.viewerArg }, system);
  const viewer = { choice, detected, platform: system.platform };
  // Consoles their viewer reaches by itself (Proxmox VE's SPICE) open from a connection file, without a port.
  const exit = (code: number) => io.exit(code);
  const split = splitConnectionFiles({ named, selected });
  const output = pageOutput(io, flags.tui);
  if (split.onlyFiles && !flags.follow) return openOnlyConnectionFiles(split.files, viewer, output, viewerEnv, exit);
  // Asked before any viewer starts: over ssh without X forwarding none could show a window.
  const display = displayHere(system);
  const run = new OpenRun(
    {
      flags,
      config,
      options,
      ports,
      plan,
      escapeKey,
      thumbnailMode,
      useTui,
      viewer,
      display,
      viewerEnv,
      via: via?.host,
    },
    io,
  );
  // After the run's signal handling is in place: its shutdown stops these viewers too.
  await startFileViewers(split.files, viewer, output, viewerEnv, run.fileViewers);
  sayVia.to = (line) => {
    if (run.view) run.view.show({ type: 'notice', text: line.replace(/^vconsole: /, '') });
    else io.stderr.write(`${line}\n`);
  };
  await run.open(split.named, split.selected);
}
