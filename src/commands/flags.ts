// Declared options as commander options (one builder for every declaration), and the listen
// and port flags the serving commands share.
import net from 'node:net';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError, describeError } from '../errors.js';
import type { OptionDeclaration } from '../targets/option-group.js';
import { CONSOLE_TYPE_OPTION, PROVIDER_OPTIONS, type ConsoleTypeFlags, type ProviderFlags } from '../targets/option-groups.js';
import { echoInput } from '../text/terminal-text.js';

/** commander's argument parsers must throw InvalidArgumentError to be reported as usage errors. */
export function asArgParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(describeError(err));
    }
  };
}

/**
 * One declared option (src/targets/option-group.ts) as commander's Option: its parser built from
 * what the declaration says (empty refused, kubectl's `-n=x`, repeats collected). Its key must be
 * commander's name for the flag, or the flags object would not hold what its type says.
 */
export function commanderOption(declaration: OptionDeclaration): Option {
  const option = new Option(declaration.flags, declaration.help);
  if (option.attributeName() !== declaration.key)
    throw new Error(`option ${declaration.flags} is declared as "${declaration.key}", commander calls it "${option.attributeName()}"`);
  if (declaration.choices) option.choices(declaration.choices);
  if (declaration.hidden) option.hideHelp();
  if (declaration.arity === 'switch' || (!declaration.parse && !declaration.what && !declaration.kubectlShortForm)) return option;
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
export function actsIn(declaration: OptionDeclaration, command: string): boolean {
  return !declaration.commands || declaration.commands.includes(command);
}

/** Adds the declared options of one --help section that act in the command, in their order. */
export function addDeclaredOptions(
  command: Command,
  declarations: readonly OptionDeclaration[],
  section: OptionDeclaration['section'],
): Command {
  for (const declaration of declarations)
    if (declaration.section === section && actsIn(declaration, command.name())) command.addOption(commanderOption(declaration));
  return command;
}

/** The provider options (src/targets/*\/options.ts) of the commands that name targets (proxy, open, console, screenshot, list), where each acts. */
export function addTargetOptions(command: Command): Command {
  return addDeclaredOptions(command, PROVIDER_OPTIONS, 'target');
}

/**
 * An argument parser refusing empty text: `-n ''` would otherwise ask the API for
 * `/namespaces//...` and come back with a puzzling "not found". commander reports the
 * InvalidArgumentError as one usage line (exit 2).
 */
export function nonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (!text.trim()) throw new InvalidArgumentError(`it is empty: give ${what}, or leave the option out for the default.`);
    return text;
  };
}

/**
 * kubectl (pflag) reads `-n=prod` as `prod`; commander hands the parser `=prod`. No namespace
 * or label selector starts with `=`, so the `=` of that form is dropped.
 */
export function kubectlShortForm<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => parse(text.startsWith('=') ? text.slice(1) : text);
}

/** A repeatable option's parser: one value stays a string (as before), more become a list. */
function repeatable(parse: (text: string) => unknown): (text: string, previous: unknown) => unknown {
  return (text, previous) => (previous === undefined ? parse(text) : [...[previous].flat(), parse(text)]);
}

/** `-p/--port` and `--listen`, for the commands that serve consoles on local ports (proxy, open). */
export function addListenOptions(command: Command): Command {
  return command
    .option('-p, --port <port>', 'first local port; targets get PORT, PORT+1, ... (default: free ports)', asArgParser(parsePort))
    .option(
      '--listen <address>',
      "address to listen on (default: the config file's listen, else 127.0.0.1); anything but loopback exposes the consoles to the network",
      asArgParser(parseListenAddress),
    );
}

export interface ListenFlags {
  port?: number;
  listen?: string;
}

/** `-t/--type`, for the commands that open consoles of any type (proxy, open). */
export function addConsoleTypeOption(command: Command): Command {
  return command.addOption(commanderOption(CONSOLE_TYPE_OPTION));
}

/** The flags of the target options and --type, typed by their declarations. */
export type TargetFlags = ProviderFlags & ConsoleTypeFlags & { verbose?: boolean };

/** `--port N`: a whole number from 1 to 65535. */
export function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`invalid port "${echoInput(text)}"`, 'use a number from 1 to 65535 (omit --port for free ports)');
  }
  return port;
}

/** The ports for `count` targets starting at `first` (N, N+1, ...), all within range; 0 = free port. */
export function consecutivePorts(first: number | undefined, count: number): number[] {
  if (first === undefined) return Array.from({ length: count }, () => 0);
  if (first + count - 1 > 65535) {
    throw new UsageError(`--port ${first} leaves no room for ${count} targets`, `use a port at most ${65536 - count}`);
  }
  return Array.from({ length: count }, (_, i) => first + i);
}

/** `--listen ADDR`: an IP address (or localhost). */
export function parseListenAddress(text: string): string {
  const host = text.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return '127.0.0.1';
  if (!net.isIP(host)) {
    throw new UsageError(`invalid listen address "${echoInput(text)}"`, 'use an IP address such as 127.0.0.1, 0.0.0.0 or ::1');
  }
  return host;
}

export function isLoopback(host: string): boolean {
  return host === '::1' || /^127\./.test(host) || host === '::ffff:127.0.0.1';
}

/** Said on stderr whenever a console becomes reachable beyond this machine. */
export function exposureWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `warning: listening on ${host}: the VM console is now reachable from the network, without authentication`;
}
