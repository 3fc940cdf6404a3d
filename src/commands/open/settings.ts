// What `vconsole open` reads before anything starts: its flags, and the settings one run is
// given (read from them by open.ts). A file of their own: the entry, the run, its actions, the
// picker and the workspace writer all read them, and none of those need import another for it.
import type { VconsoleConfig } from '../../config/config.js';
import type { TargetOptions } from '../../targets/types.js';
import type { EscapeKey } from '../../terminal/escape-key.js';
import type { ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';
import type { ViewerChoice } from '../../viewers/choose.js';
import type { DisplayVerdict } from '../../viewers/display.js';
import type { HostPlatform, ViewerCandidate } from '../../viewers/types.js';
import type { ListenFlags, TargetFlags } from '../flags.js';
import type { RecordFlags, Recording } from '../record-flags.js';
import type { SelectionFlags } from '../selector-flags.js';
import type { ShareFlags } from '../share-flags.js';
import type { Joining, JoinFlags } from '../joining.js';
import type { Sharing } from '../sharing.js';
import type { ViewerFlags } from '../viewer-flags.js';
import type { CountFlags } from './count.js';
import type { GridFlags } from './grid-flags.js';
import type { ViaFlags } from '../via.js';

export interface OpenFlags
  extends TargetFlags, ViewerFlags, ListenFlags, ShareFlags, RecordFlags, SelectionFlags, GridFlags, CountFlags, JoinFlags, ViaFlags {
  /** With --via: how long a dropped ssh connection is tried again. */
  wait?: string;
  /** With selectors: open VMs that start matching while open runs, mark those that stop. */
  follow?: boolean;
  /** false with --no-tui. */
  tui?: boolean;
  /** The key that brings the table back from an attached serial console. */
  escape?: string;
  /** A log file per serial console in this directory. */
  logDir?: string;
}

/** What a run is told before it starts: the flags read, the sharing and the viewer settled. */
export interface OpenSettings {
  flags: OpenFlags;
  config: VconsoleConfig;
  options: TargetOptions;
  listen: string;
  /** With --port: the port of each target opened at the start, in order. */
  ports: number[];
  sharing: Sharing;
  /** Whether its consoles join, or are held for, the user's other vconsoles. */
  joining: Joining;
  /** When VNC consoles are not shared: what would share them (`drop --no-share`), for `s` and the grid. */
  shareHint?: string;
  recording: Recording;
  escapeKey: EscapeKey;
  thumbnailMode: ThumbnailMode;
  /** The TUI on a terminal, plain lines otherwise. */
  useTui: boolean;
  viewer: { choice: ViewerChoice; detected: ViewerCandidate[] | undefined; platform: HostPlatform };
  /** Whether a viewer's window can show here; without, no viewer starts and ssh -L lines are printed. */
  display: DisplayVerdict;
  /** The environment as it was before the TUI loaded (which lifts CI for a moment): viewers start in it. */
  viewerEnv: NodeJS.ProcessEnv;
}
