// `vconsole version`: the version, and with --verbose the runtime and platform it runs on.
import type { Command } from 'commander';
import { createRequire } from 'node:module';
import { VERSION } from '../version.js';
import type { CommandIo } from './command-io.js';
import type { GlobalFlags } from './global-flags.js';
import { isVerbose } from './habits/kubectl-verbosity.js';

/** `vconsole version`, registered on the program. */
export function addVersionCommand(program: Command, io: Pick<CommandIo, 'stdout'>): void {
  program
    .command('version')
    .description('Print the version; with --verbose also the Node.js runtime and platform.')
    .addHelpText('after', '\nExamples:\n  vconsole version\n  vconsole version --verbose')
    .action((_flags, command: Command) => {
      io.stdout.write(`${VERSION}\n`);
      if (isVerbose(command.optsWithGlobals<GlobalFlags>())) {
        const runtime = isSingleExecutable() ? 'embedded Node.js' : 'Node.js';
        io.stdout.write(`${runtime} ${process.version}\nplatform ${process.platform}-${process.arch}\n`);
      }
    });
}

/** True inside the single executable (Node SEA). */
function isSingleExecutable(): boolean {
  try {
    return Boolean((createRequire(import.meta.url)('node:sea') as { isSea(): boolean }).isSea());
  } catch {
    return false;
  }
}
