// `vconsole completion bash|zsh|fish|powershell` prints a script that makes the shell ask
// `vconsole complete -- WORDS` at each Tab (completion-scripts.ts: VM names are completed
// literally, never expanded); the answer comes from @bomb.sh/tab, which reads the commander
// program for commands, flags and choices. Targets complete as kubectl completes resource names:
// the listing providers are asked at that moment, with a short deadline.
import { Argument, type Command } from 'commander';
import type { RootCommand } from '@bomb.sh/tab';
import type { VconsoleConfig } from '../config/index.js';
import { COMPLETION_SHELLS, completionScript } from './completion-scripts.js';

/** How long a Tab waits for the providers' listings: what has not come by then is left out. */
const COMPLETION_LISTING_MS = 1500;

/**
 * Adds `completion SHELL` and the hidden `complete -- WORDS` the scripts call. `program` makes a
 * fresh program to describe: the library adds its own commands to the program it reads.
 */
export function addCompletionCommands(
  program: Command,
  freshProgram: () => Command,
  loadConfig: () => Promise<VconsoleConfig>,
  io: { write(text: string): void; exit(): void },
): void {
  program
    .command('completion')
    .description('Print a shell completion script for commands, flags and VM names (bash, zsh, fish, powershell).')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      `
VM names complete from every provider that lists (KubeVirt, OpenStack, the demo), asked at each
Tab for up to ${COMPLETION_LISTING_MS / 1000}s, and from the config file's aliases and workspaces.
Names complete literally, quoted for the line: nothing in a name is expanded or run. A name
holding a newline or another control character is not offered.
The bash script needs the bash-completion package (as kubectl's does).

Examples:
  source <(vconsole completion bash)                      in ~/.bashrc
  source <(vconsole completion zsh)                       in ~/.zshrc
  vconsole completion fish > ~/.config/fish/completions/vconsole.fish`,
    )
    .action((shell: string) => io.write(completionScript(shell)));
  program
    .command('complete', { hidden: true })
    .description('what a completion script asks: the completions of WORDS, one a line')
    .argument('[words...]')
    .action(async (words: string[]) => {
      const described = freshProgram();
      const targets = completesTarget(described, words)
        ? await targetsToComplete(await loadConfig().catch(() => undefined), lineFlags(described, words.slice(0, -1)))
        : [];
      const root = await describe(described, targets);
      printing(io, () => root.parse(words));
      // A listing still waiting on a silent cluster would keep the shell waiting: the answer is out, so end here.
      io.exit();
    });
}

/** The library prints with console.log; here that goes where the command writes (stdout, which the shell reads). */
function printing(io: { write(text: string): void }, print: () => void): void {
  const log = console.log;
  console.log = (...parts: unknown[]) => io.write(`${parts.join(' ')}\n`);
  try {
    print();
  } finally {
    console.log = log;
  }
}

/** The library's model of `program`, with each `target` argument completing to `targets`, `--viewer` and `--type` to their names. */
async function describe(program: Command, targets: readonly string[]): Promise<RootCommand> {
  const [{ default: tab }, { VIEWER_CHOICES }, { CONSOLE_TYPES }] = await Promise.all([
    import('@bomb.sh/tab/commander'),
    import('../viewers/catalog.js'),
    import('../console-kinds/index.js'),
  ]);
  const values: Record<string, readonly string[]> = { viewer: VIEWER_CHOICES, type: [...CONSOLE_TYPES, 'auto'] };
  const offer = (names: readonly string[]) => (complete: (value: string, description: string) => void) =>
    names.forEach((name) => complete(name, ''));
  const root = tab(program, { completionCommandName: 'completion' });
  for (const command of root.commands.values()) {
    const target = command.arguments.get('target');
    if (target) target.handler = offer(targets);
    for (const [flag, names] of Object.entries(values)) {
      const option = command.options.get(flag);
      if (option) option.handler = offer(names);
    }
  }
  return root;
}

/**
 * Whether the word being completed may be a target: after a command that takes targets, with no
 * flag being typed and no flag before it waiting for its value.
 */
function completesTarget(program: Command, words: string[]): boolean {
  if ((words.at(-1) ?? '').startsWith('-')) return false;
  const command = program.commands.find((c) => words.slice(0, -1).includes(c.name()));
  if (!command?.registeredArguments.some((a) => a.name() === 'target')) return false;
  const previous = words.at(-2) ?? '';
  const flag = [...command.options, ...program.options].find((o) => o.long === previous || o.short === previous);
  return !(flag && (flag.required || flag.optional));
}

/**
 * The flags typed so far on the line (`-n prod`, `--context c`, `-A`), as the command reads
 * them, so names come from where the command will look, as kubectl's completion honours -n.
 * A line commander cannot read yet (half a flag) gives none.
 */
function lineFlags(program: Command, words: string[]): Record<string, unknown> {
  const at = words.findIndex((word) => program.commands.some((c) => c.name() === word));
  const command = program.commands.find((c) => c.name() === words[at]);
  if (!command) return {};
  try {
    command.parseOptions(words.slice(at + 1));
    return command.opts();
  } catch {
    return {};
  }
}

async function targetsToComplete(config: VconsoleConfig | undefined, flags: Record<string, unknown>): Promise<string[]> {
  const { completionTargets } = await import('./completion-targets.js');
  return completionTargets(config ?? { defaults: {}, aliases: {} }, flags, COMPLETION_LISTING_MS);
}
