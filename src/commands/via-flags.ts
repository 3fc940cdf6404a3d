// `--via` and its `--wait`, as commander options: apart from via.ts so that building the command
// line loads no ssh or protocol code.
import { Option, type Command } from 'commander';
import { parseViaAddress } from '../via/address.js';
import { asArgParser } from './flags.js';

export interface ViaFlags {
  via?: string;
  verbose?: boolean;
}

/** The commands --via acts in: those that name or list consoles. */
export const VIA_COMMANDS = ['proxy', 'open', 'console', 'screenshot', 'list'];

/** `--via`, for the commands that name or list consoles. */
export function addViaOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--via <[user@]host[:port]>',
      "resolve and dial the consoles on that host, through your own ssh (vconsole runs there: vconsole install --via HOST puts it there); default: the config file's via",
    ).argParser(asArgParser((text) => parseViaAddress(text).text)),
  );
}

/** `--wait` of open and proxy: with --via, how long a dropped ssh connection is tried again. */
export function addViaWaitOption(command: Command): Command {
  return command.option(
    '--wait <duration>',
    'with --via: connect again this long (e.g. 5m) when the ssh connection drops (default: 0, end the consoles)',
  );
}

/** --via on each command that takes it, --wait on the serving ones (console has its own). */
export function addViaOptions(program: Command): void {
  for (const command of program.commands) {
    if (!VIA_COMMANDS.includes(command.name())) continue;
    addViaOption(command);
    if (command.name() === 'proxy' || command.name() === 'open') addViaWaitOption(command);
  }
}
