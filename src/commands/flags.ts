// Declared options as commander options (one builder for every declaration: the providers', the
// commands' shared ones of src/flags/command-flags.ts and each command's own), laid out per
// command by addFlags; and what the serving commands make of --port and --listen.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError, describeError } from '../errors.js';
import { COMMAND_FLAGS } from '../flags/command-flags.js';
import { leaveToHelpAll, leftToHelpAll } from './help-all.js';
import type { OptionDeclaration, OptionSection } from '../targets/option-group.js';
import { CONSOLE_TYPE_OPTION, PROVIDER_OPTIONS, type ConsoleTypeFlags, type ProviderFlags } from '../targets/option-groups.js';

export { parseListenAddress, parsePort } from '../flags/values.js';

/** commander's argument parsers must throw InvalidArgumentError to be reported as usage errors. */
function asArgParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(describeError(err));
    }
  };
}

/**
 * One declared option (src/targets/option-group.ts) as commander's Option, with its help in
 * `command`: its parser built from what the declaration says (empty refused, kubectl's `-n=x`,
 * repeats collected). Its key must be commander's name for the flag, or the flags object would
 * not hold what its type says.
 */
export function commanderOption(declaration: OptionDeclaration, command?: string): Option {
  const help = (command === undefined ? undefined : declaration.helpIn?.[command]) ?? declaration.help;
  const option = new Option(declaration.flags, help);
  if (option.attributeName() !== declaration.key)
    throw new Error(`option ${declaration.flags} is declared as "${declaration.key}", commander calls it "${option.attributeName()}"`);
  if (declaration.choices) option.choices(declaration.choices);
  if (declaration.hidden) option.hideHelp();
  if (declaration.mandatory) option.makeOptionMandatory();
  const plain = !declaration.parse && !declaration.what && !declaration.kubectlShortForm;
  if (declaration.arity === 'switch' || (declaration.arity === 'value' && plain)) return option;
  const parse = declaration.parse?.bind(declaration);
  const checked = parse ? asArgParser(parse) : (text: string): unknown => text;
  const what = declaration.what;
  const filled = what ? (text: string) => checked(nonEmpty(what)(text)) : checked;
  const one = declaration.kubectlShortForm ? kubectlShortForm(filled) : filled;
  if (declaration.arity === 'list')
    return option.argParser((text: string, previous: unknown[] | undefined) => [...(previous ?? []), one(text)]);
  if (declaration.arity === 'one-or-list') return option.argParser(repeatable(one));
  return option.argParser(one);
}

/** Whether the declared option acts in `command` (its `commands`, else every command given the provider options). */
function actsIn(declaration: OptionDeclaration, command: string): boolean {
  return !declaration.commands || declaration.commands.includes(command);
}

/** Every declaration a command's layout may name by section: the providers' options, --type and the shared command flags. */
const DECLARED: readonly OptionDeclaration[] = [...PROVIDER_OPTIONS, CONSOLE_TYPE_OPTION, ...COMMAND_FLAGS];

/**
 * A command's flags in --help order: a section adds the declarations of that section that act
 * in the command (src/flags/command-flags.ts, the provider options), a list the command's own.
 */
export type FlagLayout = readonly (Exclude<OptionSection, 'own'> | readonly OptionDeclaration[])[];

/** Adds a command's flags as its layout lists them; its short --help leaves some to --help-all (help-all.ts). */
export function addFlags(command: Command, layout: FlagLayout): Command {
  const name = command.name();
  for (const entry of layout) {
    const declarations = typeof entry === 'string' ? DECLARED.filter((d) => d.section === entry && actsIn(d, name)) : entry;
    for (const declaration of declarations) {
      const option = commanderOption(declaration, name);
      command.addOption(option);
      const word = declaration.hidden ? undefined : leftToHelpAll(declaration, name);
      if (word) leaveToHelpAll(command, option, word);
    }
  }
  return command;
}

/**
 * An argument parser refusing empty text: `-n ''` would otherwise ask the API for
 * `/namespaces//...` and come back with a puzzling "not found". commander reports the
 * InvalidArgumentError as one usage line (exit 2).
 */
function nonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (!text.trim()) throw new InvalidArgumentError(`it is empty: give ${what}, or leave the option out for the default.`);
    return text;
  };
}

/**
 * kubectl (pflag) reads `-n=prod` as `prod`; commander hands the parser `=prod`. No namespace
 * or label selector starts with `=`, so the `=` of that form is dropped.
 */
function kubectlShortForm<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => parse(text.startsWith('=') ? text.slice(1) : text);
}

/** A repeatable option's parser: one value stays a string (as before), more become a list. */
function repeatable(parse: (text: string) => unknown): (text: string, previous: unknown) => unknown {
  return (text, previous) => (previous === undefined ? parse(text) : [...[previous].flat(), parse(text)]);
}

/** The flags of the target options and --type, typed by their declarations. */
export type TargetFlags = ProviderFlags & ConsoleTypeFlags & { verbose?: boolean };

/** The ports for `count` targets starting at `first` (N, N+1, ...), all within range; 0 = free port. */
export function consecutivePorts(first: number | undefined, count: number): number[] {
  if (first === undefined) return Array.from({ length: count }, () => 0);
  if (first + count - 1 > 65535) {
    throw new UsageError(`--port ${first} leaves no room for ${count} targets`, `use a port at most ${65536 - count}`);
  }
  return Array.from({ length: count }, (_, i) => first + i);
}

export function isLoopback(host: string): boolean {
  return host === '::1' || /^127\./.test(host) || host === '::ffff:127.0.0.1';
}

/** Said on stderr whenever a console becomes reachable beyond this machine. */
export function exposureWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `warning: listening on ${host}: the VM console is now reachable from the network, without authentication`;
}
