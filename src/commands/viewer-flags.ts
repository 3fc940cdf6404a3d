import type { Command } from 'commander';
import { VIEWER_ALIASES, VIEWER_CHOICES } from '../viewers/catalog.js';

/** `--viewer` and `--viewer-arg`, shared by `open` and `viewers`. Cheap to import (the catalog is data). */
export function addViewerOptions(command: Command): Command {
  return command
    .option(
      '--viewer <name|path>',
      `viewer to use: ${VIEWER_CHOICES.join(', ')} (also as ${[...VIEWER_ALIASES.keys()].join(', ')}), or the path of an executable (given HOST::PORT, the form most ` +
        'vncviewer clones accept); default: $VCONSOLE_VIEWER, else the first found',
    )
    .option('--viewer-arg <arg>', 'extra argument for the viewer, before the address (repeatable)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ]);
}

export interface ViewerFlags {
  viewer?: string;
  viewerArg?: string[];
}
