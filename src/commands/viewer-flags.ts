import type { Command } from 'commander';

/** `--viewer` and `--viewer-arg`, shared by `open` and `viewers`. Cheap to import. */
export function addViewerOptions(command: Command): Command {
  return command
    .option(
      '--viewer <name|path>',
      'viewer to use: tigervnc, remote-viewer, realvnc, tightvnc, chicken, screen-sharing, none, or the path of an ' +
        'executable (given HOST::PORT, the form most vncviewer clones accept); default: $VCONSOLE_VIEWER, else the first found',
    )
    .option('--viewer-arg <arg>', 'extra argument for the viewer, before the address (repeatable)', (v: string, prev: string[] = []) => [...prev, v]);
}

export interface ViewerFlags {
  viewer?: string;
  viewerArg?: string[];
}
