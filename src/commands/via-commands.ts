// The two commands of --via: `install`, which puts vconsole on a host, and the hidden `agent`,
// which is vconsole there. Each loads its module only when it runs.
import type { Command } from 'commander';
import { type FlagsOf, switchOption, valueOption } from '../targets/index.js';
import type { CommandIo } from './command-io.js';
import { addFlags } from './flags.js';

/** install's one flag: the host, which it must be given (mandatory: commander refuses the command without it). */
const INSTALL_FLAGS = [
  valueOption('via', {
    flags: '--via <[user@]host[:port]>',
    help: 'the host (through your own ssh, or $VCONSOLE_SSH_COMMAND)',
    section: 'own',
    mandatory: true,
  }),
] as const;

/** agent's one flag. */
const AGENT_FLAGS = [
  switchOption('stdio', { flags: '--stdio', help: 'speak the via protocol on stdin and stdout', section: 'own' }),
] as const;

/** `vconsole install --via HOST`, and the far end of --via (`vconsole agent --stdio`), on the program. */
export function addViaCommands(program: Command, io: CommandIo): void {
  addFlags(
    program
      .command('install')
      .description("Copy this vconsole's single executable for a host's OS and architecture into ~/.local/bin there, for --via"),
    [INSTALL_FLAGS],
  )
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
    .action(async (flags: Required<FlagsOf<typeof INSTALL_FLAGS>>) => {
      const { runInstallCommand } = await import('./install.js');
      await runInstallCommand(flags.via, io);
    });

  // The far end of --via, run over ssh by the near vconsole: not for users, so not in --help.
  addFlags(program.command('agent', { hidden: true }).description('the far end of --via: serve one near vconsole on stdin/stdout'), [
    AGENT_FLAGS,
  ]).action(async () => {
    const { runAgentCommand } = await import('./agent.js');
    await runAgentCommand({ stdin: process.stdin, stdout: process.stdout, exit: io.exit });
  });
}
