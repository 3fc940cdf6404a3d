// The completion refresher: a detached process a Tab starts (completion-tab.ts) with the entries
// to list again (`kubevirt,config`) and the line's words. It lists each provider as the command
// would for those flags, writes each entry under its key (completion-keys.ts) and gives its lock
// back. It ends on its own: by refreshBoundMs at the latest, whatever an API does, taking its
// locks back first; a listing still out then is left for the next Tab to ask again.
import type { Command } from 'commander';
import type { VconsoleConfig } from '../config/index.js';
import { claimLock, completionCacheDir, entryName, refreshBoundMs, releaseLock, writeEntry } from './completion-cache.js';
import { configKey, providerKey, typedFlags } from './completion-keys.js';
import { completionModel, type ProgramMaker } from './completion-model.js';

/** `IDS -- WORDS`: refreshes the entries of IDS for the line WORDS, then ends the process. */
export async function refreshCompletion(args: readonly string[], makeProgram: ProgramMaker): Promise<void> {
  const ids = (args[0] ?? '').split(',').filter(Boolean);
  const words = args[1] === '--' ? args.slice(2) : args.slice(1);
  const dir = completionCacheDir();
  const bound = refreshBoundMs();
  const held: string[] = [];
  const end = () => {
    held.forEach((name) => releaseLock(dir, name));
    process.exit(0);
  };
  const timer = setTimeout(end, bound);
  try {
    const model = await completionModel(dir, makeProgram, false);
    const typed = typedFlags(model, words);
    const keys = new Map(ids.map((id) => [id, id === 'config' ? configKey(typed) : providerKey(model, typed, id)]));
    held.push(...[...keys.values()].map(entryName));
    held.forEach((name) => claimLock(dir, name));
    const program = await makeProgram();
    const config = await loadConfig(typed['--config']?.at(-1));
    const names = await namesOf(ids, config, lineFlags(program, words), Math.max(bound - 1000, bound / 2));
    for (const [id, listed] of names) writeEntry(dir, entryName(keys.get(id)), keys.get(id), listed);
  } catch {
    // Nothing to write: the next stale Tab asks again.
  }
  clearTimeout(timer);
  end();
}

async function loadConfig(file: string | undefined): Promise<VconsoleConfig> {
  try {
    return await (await import('../config/config.js')).loadConfig(file);
  } catch {
    return { defaults: {}, aliases: {} };
  }
}

/** The names of each entry of `ids`: the config file's, and each provider's that answered in time. */
async function namesOf(
  ids: readonly string[],
  config: VconsoleConfig,
  flags: Record<string, unknown>,
  deadlineMs: number,
): Promise<Map<string, string[]>> {
  const [{ configNames, listedNames }, { PROVIDERS }] = await Promise.all([
    import('./completion-targets.js'),
    import('../targets/registry.js'),
  ]);
  const providers = PROVIDERS.filter((provider) => ids.includes(provider.id));
  const names = providers.length > 0 ? await listedNames(config, flags, providers, deadlineMs) : new Map<string, string[]>();
  if (ids.includes('config')) names.set('config', configNames(config));
  return names;
}

/**
 * The flags typed on the line (`-n prod`, `--context c`, `-A`), as the command reads them, so
 * names come from where the command will look, as kubectl's completion honours -n. A line
 * commander cannot read yet (half a flag) gives none.
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
