// What a Tab needs to know of the command line, as data: @bomb.sh/tab's model of the commander
// program (commands, flags, the values a flag takes), every flag's spellings (to read the line
// typed) and the names a provider lists without asking anyone (the demo's). Made once from the
// program (makeModel: loads the whole command line, ~100 ms) and kept in the completion cache per
// vconsole build; a Tab rebuilds tab's model from it (tabRoot) loading only @bomb.sh/tab.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { RootCommand } from '@bomb.sh/tab';
import { VERSION } from '../version.js';
import { entryName, makeCacheDir, readEntry, writeEntry } from './completion-cache.js';

/** A fresh program to describe, without the completion commands (tab adds its own). */
export type ProgramMaker = () => Promise<Command>;

interface ModelOption {
  value: string;
  description: string;
  alias?: string;
  /** Present when the flag takes a value: the values offered for it. */
  values?: string[];
}

interface ModelArgument {
  name: string;
  variadic: boolean;
  /** The values offered for it; absent: none (a `target` argument is offered the VM names). */
  values?: string[];
}

interface ModelCommand {
  /** The command's words (`''` for the program itself, `via install` for a subcommand). */
  value: string;
  description: string;
  options: ModelOption[];
  arguments: ModelArgument[];
}

/** A flag as the line is read: its spellings, its key, whether it takes a value, whose provider it is. */
interface ModelFlag {
  spellings: string[];
  key: string;
  takesValue: boolean;
  /** The provider whose option group declares it (src/targets/option-groups.ts). */
  provider?: string;
}

export interface CompletionModel {
  commands: ModelCommand[];
  flags: ModelFlag[];
  /** Targets a provider lists with no I/O (the demo's): offered from the first Tab on. */
  localNames: string[];
  /** The providers that list by asking an API or a program: their names come from the cache. */
  listingProviders: string[];
}

/** The model of `program` (a fresh one: tab adds its own commands to the program it reads). */
async function makeModel(program: Command): Promise<CompletionModel> {
  const [{ default: tab }, { VIEWER_CHOICES }, { CONSOLE_TYPES }, { OPTION_GROUPS }, { PROVIDERS }, { OUTPUT_FORMATS }] = await Promise.all(
    [
      import('@bomb.sh/tab/commander'),
      import('../viewers/catalog.js'),
      import('../console-kinds/index.js'),
      import('../targets/index.js'),
      import('../targets/registry.js'),
      import('./output-format.js'),
    ],
  );
  const flagValues: Record<string, readonly string[]> = {
    viewer: VIEWER_CHOICES,
    type: [...CONSOLE_TYPES, 'auto'],
    output: OUTPUT_FORMATS,
  };
  const root = tab(program, { completionCommandName: 'completion' });
  const commands = [root, ...root.commands.values()].map((command) => ({
    value: command.value,
    description: command.description,
    options: [...command.options.values()].map((option) => ({
      value: option.value,
      description: option.description,
      ...(option.alias ? { alias: option.alias } : {}),
      ...(option.isBoolean ? {} : { values: [...(flagValues[option.value] ?? offered(option.handler))] }),
    })),
    arguments: [...command.arguments.values()].map((argument) => ({
      name: argument.name,
      variadic: argument.variadic,
      ...(argument.handler && argument.name !== 'target' ? { values: offered(argument.handler) } : {}),
    })),
  }));
  const providerOf = new Map(OPTION_GROUPS.flatMap((group) => group.options.map((option) => [option.key, group.provider] as const)));
  const local = PROVIDERS.filter((provider) => provider.id === 'demo');
  const localNames = (await Promise.all(local.map(async (provider) => (await provider.list?.({}, {})) ?? []))).flat();
  return {
    commands,
    flags: lineFlagsOf(program, providerOf),
    localNames: localNames.map((vm) => vm.target),
    listingProviders: PROVIDERS.filter((provider) => provider.list && !local.includes(provider)).map((provider) => provider.id),
  };
}

/** What a handler tab calls offers. */
function offered(handler: unknown): string[] {
  const values: string[] = [];
  if (typeof handler === 'function') (handler as (complete: (value: string) => void) => void)((value) => values.push(value));
  return values;
}

/** Every flag of the program and its commands, once each by its long spelling. */
function lineFlagsOf(program: Command, providerOf: ReadonlyMap<string, string>): ModelFlag[] {
  const flags = new Map<string, ModelFlag>();
  const visit = (command: Command) => {
    for (const option of command.options) {
      const spellings = [option.short, option.long].filter((s): s is string => Boolean(s));
      const key = option.attributeName();
      const provider = providerOf.get(key);
      flags.set(option.long ?? key, { spellings, key, takesValue: option.required || option.optional, ...(provider ? { provider } : {}) });
    }
    command.commands.forEach(visit);
  };
  visit(program);
  return [...flags.values()];
}

/** tab's model from `model`, each `target` argument offered `targets`. */
export async function tabRoot(model: CompletionModel, targets: readonly string[]): Promise<RootCommand> {
  const { default: root } = await import('@bomb.sh/tab');
  const offer = (names: readonly string[]) => (complete: (value: string, description: string) => void) =>
    names.forEach((name) => complete(name, ''));
  for (const described of model.commands) {
    const command = described.value === '' ? root : root.command(described.value, described.description);
    for (const option of described.options) {
      if (option.values) command.option(option.value, option.description, offer(option.values), option.alias);
      else command.option(option.value, option.description, option.alias);
    }
    for (const argument of described.arguments) {
      const values = argument.name === 'target' ? targets : argument.values;
      command.argument(argument.name, values ? offer(values) : undefined, argument.variadic);
    }
  }
  return root;
}

/**
 * Whether the word being completed may be a target: after a command that takes targets, with no
 * flag being typed and no flag before it waiting for its value.
 */
export function completesTarget(model: CompletionModel, words: readonly string[]): boolean {
  if ((words.at(-1) ?? '').startsWith('-')) return false;
  const typed = words.slice(0, -1);
  const command = model.commands.find((c) => c.value !== '' && !c.value.includes(' ') && typed.includes(c.value));
  if (!command?.arguments.some((a) => a.name === 'target')) return false;
  const previous = words.at(-2) ?? '';
  return !model.flags.some((flag) => flag.takesValue && flag.spellings.includes(previous));
}

/** The model of this vconsole build: from the cache, else made from the program and kept there (unless not `keep`: a refresher). */
export async function completionModel(dir: string, makeProgram: ProgramMaker, keep = true): Promise<CompletionModel> {
  const key = { v: 1, model: VERSION, build: [process.execPath, ...entryFiles()].map(stampOf) };
  const name = `model-${entryName(key)}`;
  const cached = readEntry<CompletionModel>(dir, name, key);
  if (cached) return cached.value;
  const model = await makeModel(await makeProgram());
  if (!keep) return model;
  try {
    makeCacheDir(dir);
    writeEntry(dir, name, key, model);
  } catch {
    // No cache here (a read-only home): every Tab describes the program anew.
  }
  return model;
}

/** The compiled command line this module belongs to (none in the single executable's bundle). */
function entryFiles(): string[] {
  try {
    return [fileURLToPath(new URL('../cli.js', import.meta.url))];
  } catch {
    return [];
  }
}

function stampOf(file: string): [string, number] | [string, null] {
  try {
    return [file, fs.statSync(file).mtimeMs];
  } catch {
    return [file, null];
  }
}
