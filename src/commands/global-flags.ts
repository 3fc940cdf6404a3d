// The flags every command takes (--verbose, kubectl's --v=N, --config), as commander options, and
// what a command's action makes of them: its flags with --verbose, and the config file loaded.
import type { Command } from 'commander';
import { type FlagsOf, switchOption, valueOption } from '../targets/index.js';
import { addFlags } from './flags.js';
import { isVerbose, parseVerbosityLevel } from './habits/kubectl-verbosity.js';

/** The global flags: --verbose, kubectl's --v=N (the CLI edge rewrites -v N to it), --config. */
const GLOBAL_FLAGS = [
  switchOption('verbose', { flags: '-v, --verbose', help: 'log more, and show stack traces of errors', section: 'own' }),
  valueOption('v', {
    flags: '--v <level>',
    help: "kubectl's log level, also as -v N: 0-9, 4 and up is --verbose",
    section: 'own',
    parse: parseVerbosityLevel,
  }),
  valueOption('config', {
    flags: '--config <file>',
    help: 'config file (default: $XDG_CONFIG_HOME/vconsole/config.yaml, else ~/.config/vconsole/config.yaml; on Windows %APPDATA%\\vconsole\\config.yaml)',
    section: 'own',
  }),
] as const;

export type GlobalFlags = FlagsOf<typeof GLOBAL_FLAGS>;

/** --verbose, --v and --config, on the program (commander gives them to every command). */
export function addGlobalOptions(program: Command): Command {
  return addFlags(program, [GLOBAL_FLAGS]);
}

/** A command's flags with the global --verbose added, and the config file that --config (or the default) names. */
export async function withGlobalOptions<F>(flags: F, command: Command) {
  const globals = command.optsWithGlobals<GlobalFlags>();
  const { loadConfig } = await import('../config/config.js');
  return { flags: { ...flags, verbose: isVerbose(globals) }, config: await loadConfig(globals.config) };
}

/** The global flags as a command line, for an alias that runs the command it stands for. */
export function globalArgs(globals: GlobalFlags): string[] {
  return [
    ...(globals.verbose ? ['--verbose'] : []),
    ...(globals.v === undefined ? [] : [`--v=${globals.v}`]),
    ...(globals.config === undefined ? [] : ['--config', globals.config]),
  ];
}
