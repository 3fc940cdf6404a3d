import { switchOption, valueOption, type FlagsOf } from '../../targets/option-group.js';
import { detectThumbnailMode, parseThumbnailMode, THUMBNAIL_MODES, type ThumbnailMode } from '../../tui/thumbnails/thumbnail.js';

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

/** The drawing the flag asks for, else VCONSOLE_THUMBNAILS, else what the terminal supports. */
export function thumbnailModeFrom(flags: GridFlags, env: NodeJS.ProcessEnv): ThumbnailMode {
  return flags.thumbnails ?? detectThumbnailMode(env);
}
