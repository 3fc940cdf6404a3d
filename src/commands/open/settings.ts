// What `vconsole open` reads before anything starts: its flags, and the settings one run is
// given (read from them by open.ts). A file of their own: the entry, the run, its actions, the
// picker and the workspace writer all read them, and none of those need import another for it.
import type { VconsoleConfig } from '../../config/index.js';
import type { TargetOptions } from '../../targets/types.js';
import type { EscapeKey } from '../../terminal/escape-key.js';
import type { ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';
import type { ViewerChoice } from '../../viewers/choose.js';
import type { DisplayVerdict } from '../../viewers/display.js';
import type { HostPlatform, ViewerCandidate } from '../../viewers/types.js';
import type { CommandFlagsIn } from '../../flags/command-flags.js';
import { switchOption, valueOption, type FlagsOf } from '../../targets/option-group.js';
import type { TargetFlags } from '../flags.js';
import type { ServingPlan } from '../serving-plan.js';
import type { CountFlags } from './count.js';
import type { GridFlags } from './grid-flags.js';

/** `open`'s own flags before --follow in its --help; --max and --yes (count.ts) and the grid's (grid-flags.ts) come after. */
export const OPEN_FLAGS = [
  // false with --no-tui.
  switchOption('tui', {
    flags: '--no-tui',
    advanced: true,
    help: 'plain log lines on stderr and JSON port lines on stdout instead of the terminal UI',
    section: 'own',
  }),
  // The key that brings the table back from an attached serial console.
  valueOption('escape', {
    flags: '--escape <key>',
    advanced: true,
    help: 'the key that leaves an attached serial console for the table (default: ^])',
    section: 'own',
  }),
  // A log file per serial console in this directory.
  valueOption('logDir', {
    flags: '--log-dir <dir>',
    advanced: true,
    help: "append each serial console's output to DIR/NAME.log (created 0600)",
    section: 'own',
  }),
] as const;

/** Everything `open` is given: the provider options, the shared command flags that act in open, and its own. */
export type OpenFlags = TargetFlags & CommandFlagsIn<'open'> & FlagsOf<typeof OPEN_FLAGS> & GridFlags & CountFlags;

/** What a run is told before it starts: the flags read, the sharing and the viewer settled. */
export interface OpenSettings {
  flags: OpenFlags;
  config: VconsoleConfig;
  options: TargetOptions;
  /** With --port: the port of each target opened at the start, in order. */
  ports: number[];
  /** How its consoles are served: the listen address, sharing, recording, joining, the wrappers (serving-plan.ts). */
  plan: ServingPlan;
  escapeKey: EscapeKey;
  thumbnailMode: ThumbnailMode;
  /** The TUI on a terminal, plain lines otherwise. */
  useTui: boolean;
  viewer: { choice: ViewerChoice; detected: ViewerCandidate[] | undefined; platform: HostPlatform };
  /** Whether a viewer's window can show here; without, no viewer starts and ssh -L lines are printed. */
  display: DisplayVerdict;
  /** --via HOST: the bastion as the user named it, for the header. */
  via?: string;
  /** The environment as it was before the TUI loaded (which lifts CI for a moment): viewers start in it. */
  viewerEnv: NodeJS.ProcessEnv;
}
