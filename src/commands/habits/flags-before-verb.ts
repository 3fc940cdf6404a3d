// kubectl's flag positions: its global flags go before the verb as well as after it
// (`kubectl -n prod get vmi`, and kubectl hands a plugin its flags as they were typed:
// `kubectl vconsole -n prod list`). commander reads a flag before the command as the program's,
// and vconsole's program has only --verbose, --v and --config; so the flags before the verb that
// are a command's (a provider's -n, --context, --kubeconfig, --as ...) are moved to just after
// it, before commander reads the line. A flag no command has stays where it is: commander says
// it is unknown, in one line.
import type { Command, Option } from 'commander';

/** Whether each flag spelling a command takes (`-n`, `--namespace`) is followed by a value. */
function commandFlags(program: Command): Map<string, boolean> {
  const flags = new Map<string, boolean>();
  const note = (option: Option) => {
    const takesValue = option.required || option.optional;
    for (const spelling of [option.short, option.long]) if (spelling) flags.set(spelling, takesValue);
  };
  for (const command of program.commands) for (const option of command.options) note(option);
  return flags;
}

/** The program's own flags (--verbose, --v, --config, --version, --help), which stay before the verb. */
function programFlags(program: Command): Map<string, boolean> {
  const flags = new Map<string, boolean>([
    ['-h', false],
    ['--help', false],
  ]);
  for (const option of program.options) {
    const takesValue = option.required || option.optional;
    for (const spelling of [option.short, option.long]) if (spelling) flags.set(spelling, takesValue);
  }
  return flags;
}

/**
 * `args` (the command line after the program) with the command flags written before the verb
 * moved to right after it. Unchanged when the line has no verb, or nothing to move.
 */
export function flagsAfterVerb(program: Command, args: readonly string[]): string[] {
  const own = programFlags(program);
  const theirs = commandFlags(program);
  const verbs = new Set(program.commands.flatMap((command) => [command.name(), ...command.aliases()]));
  const kept: string[] = [];
  const moved: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--' || !arg.startsWith('-') || arg === '-') {
      if (!verbs.has(arg) || moved.length === 0) return [...args];
      return [...kept, arg, ...moved, ...args.slice(i + 1)];
    }
    const [spelling, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), true] : [arg, false];
    const ownFlag = own.get(spelling);
    const takesValue = ownFlag ?? theirs.get(spelling);
    // An unknown flag (or -abc bundles): nothing is known of what follows it; leave the line as it is.
    if (takesValue === undefined) return [...args];
    const flag = takesValue && !inline && i + 1 < args.length ? [arg, args[++i]] : [arg];
    (ownFlag === undefined ? moved : kept).push(...flag);
  }
  return [...args];
}
