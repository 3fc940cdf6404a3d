// `--via` and its `--wait`, as commander options, and the two commands of --via (install, which
// puts vconsole on the host, and the hidden agent, which is vconsole there): apart from via.ts so
// that building the command line loads no ssh or protocol code.
import { Option, type Command } from 'commander';
import { parseViaAddress } from '../via/address.js';
import type { CommandIo } from './command-io.js';
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

/** `vconsole install --via HOST`, and the far end of --via (`vconsole agent --stdio`), on the program. */
export function addViaCommands(program: Command, io: CommandIo): void {
  program
    .command('install')
    .description("Copy this vconsole's single executable for a host's OS and architecture into ~/.local/bin there, for --via")
    .requiredOption('--via <[user@]host[:port]>', 'the host (through your own ssh, or $VCONSOLE_SSH_COMMAND)')
    .addHelpText(
      'after',
      `
Asks the host's OS and architecture (uname -sm), says what it copies, then copies the matching
single executable (dist/bin/vconsole-OS-ARCH as npm run package makes them, $VCONSOLE_EXECUTABLES,
or this executable itself) through ssh, checks its sha256 there and moves it into place.

Examples:
  vconsole install --via jump.example.com
  vconsole install --via alice@10.0.0.5:2222`,
    )
    .action(async (flags: { via: string }) => {
      const { runInstallCommand } = await import('./install.js');
      await runInstallCommand(flags.via, io);
    });

  // The far end of --via, run over ssh by the near vconsole: not for users, so not in --help.
  program
    .command('agent', { hidden: true })
    .description('the far end of --via: serve one near vconsole on stdin/stdout')
    .option('--stdio', 'speak the via protocol on stdin and stdout')
    .action(async () => {
      const { runAgentCommand } = await import('./agent.js');
      await runAgentCommand({ stdin: process.stdin, stdout: process.stdout, exit: io.exit });
    });
}
