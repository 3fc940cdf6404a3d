// `vconsole completion bash|zsh|fish|powershell` prints a script that makes the shell ask
// `vconsole complete -- WORDS` at each Tab (completion-scripts.ts: VM names are completed
// literally, never expanded); the answer comes from @bomb.sh/tab, from a model of the commander
// program for commands, flags and choices (completion-model.ts). Targets complete from a
// per-user cache that a background refresher keeps (completion-tab.ts): a Tab never waits for an API.
import { Argument, type Command } from 'commander';
import { COMPLETION_SHELLS, completionScript } from './completion-scripts.js';
import { COMPLETION_STALE_MS, completionCacheDir } from './completion-cache.js';

/**
 * Adds `completion SHELL` and the hidden `complete -- WORDS` the scripts call. `program` makes a
 * fresh program to describe: the library adds its own commands to the program it reads.
 */
export function addCompletionCommands(
  program: Command,
  freshProgram: () => Command,
  io: { write(text: string): void; exit(): void },
): void {
  program
    .command('completion')
    .description('Print a shell completion script for commands, flags and VM names (bash, zsh, fish, powershell).')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      `
VM names complete from every provider that lists (KubeVirt, OpenStack, Proxmox VE, libvirt, the
demo) and from the config file's aliases and workspaces. A Tab answers from a per-user cache
($XDG_CACHE_HOME/vconsole/completion) and never waits for an API: names not there yet (the first
Tab for a context, namespace or cloud) or older than ${COMPLETION_STALE_MS / 1000}s are listed again in the background,
for the next Tab.
Names complete literally, quoted for the line: nothing in a name is expanded or run. A name
holding a newline or another control character is not offered.
The bash script needs the bash-completion package (as kubectl's does).

Examples:
  source <(vconsole completion bash)                      in ~/.bashrc
  source <(vconsole completion zsh)                       in ~/.zshrc
  vconsole completion fish > ~/.config/fish/completions/vconsole.fish`,
    )
    .action(async (shell: string) => {
      io.write(completionScript(shell));
      // A shell sources this at its start: describe the command line for the Tabs now, so even
      // the first Tab after an upgrade loads no more than any other.
      const { completionModel } = await import('./completion-model.js');
      await completionModel(completionCacheDir(), async () => freshProgram()).catch(() => undefined);
    });
  program
    .command('complete', { hidden: true })
    .description('what a completion script asks: the completions of WORDS, one a line')
    .argument('[words...]')
    .action(async (words: string[]) => {
      // bin/vconsole.js answers `complete` before loading the command line; this is the same
      // answer for a line that reached commander (a global flag before the verb).
      const { answerTab } = await import('./completion-tab.js');
      const startRefresh = await answerTab(words, io.write, async () => freshProgram());
      startRefresh();
      io.exit();
    });
}
