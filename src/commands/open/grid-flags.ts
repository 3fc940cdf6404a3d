import type { Command } from 'commander';
import { detectThumbnailMode, parseThumbnailMode, THUMBNAIL_MODES, type ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';
import { asArgParser } from '../flags.js';
import type { ShareFlags } from '../share-flags.js';

/** `--grid` and `--thumbnails`, for `open`. Cheap to import (cli.ts loads it for every command). */
export interface GridFlags {
  /** Start the TUI in the grid of live screens. */
  grid?: boolean;
  thumbnails?: ThumbnailMode;
}

export function addGridOptions(command: Command): Command {
  return command
    .option(
      '--grid',
      'start in the grid of live screens (g switches); its pictures come from the shared VNC consoles (shared even with defaults.share: false)',
    )
    .option(
      '--thumbnails <mode>',
      `how the grid draws screens: ${THUMBNAIL_MODES.join('|')} (default: from the terminal; VCONSOLE_THUMBNAILS)`,
      asArgParser((text) => parseThumbnailMode(text)),
    );
}

/**
 * The grid's pictures come from the RFB hub's framebuffer: `open` shares by default, and
 * `--grid` shares even over defaults.share: false, unless --no-share says otherwise (then
 * their tiles say why they have no picture).
 */
export function withGridSharing<F extends ShareFlags & GridFlags>(flags: F): F {
  return flags.grid && flags.share === undefined ? { ...flags, share: true } : flags;
}

/** The drawing the flag asks for, else VCONSOLE_THUMBNAILS, else what the terminal supports. */
export function thumbnailModeFrom(flags: GridFlags, env: NodeJS.ProcessEnv): ThumbnailMode {
  return flags.thumbnails ?? detectThumbnailMode(env);
}
