import { switchOption, valueOption, type FlagsOf } from '../../targets/option-group.js';
import { detectThumbnailMode, parseThumbnailMode, THUMBNAIL_MODES, type ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';
import type { ShareFlags } from '../share-flags.js';

/** `--grid` and `--thumbnails`, `open`'s own. Cheap to import (cli.ts loads it for every command). */
export const GRID_FLAGS = [
  // Start the TUI in the grid of live screens.
  switchOption('grid', {
    flags: '--grid',
    help: 'start in the grid of live screens (g switches); it shares the VNC consoles, even with defaults.share: false',
    section: 'own',
  }),
  valueOption('thumbnails', {
    flags: '--thumbnails <mode>',
    advanced: true,
    help: `how the grid draws screens: ${THUMBNAIL_MODES.join('|')} (default: from the terminal; VCONSOLE_THUMBNAILS)`,
    section: 'own',
    parse: (text): ThumbnailMode => parseThumbnailMode(text),
  }),
] as const;

export type GridFlags = FlagsOf<typeof GRID_FLAGS>;

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
