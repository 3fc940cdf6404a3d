// `vconsole power` as a command of the program: its arguments, its flags (--yes, then the
// provider options and --via), its help and its action, which loads power.ts only when it runs.
import type { Command } from 'commander';
import { POWER_ACTIONS, switchOption, type FlagsOf } from '../targets/index.js';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout, type TargetFlags } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import type { CommandFlagsIn } from '../flags/command-flags.js';

const POWER_FLAGS = [
  switchOption('yes', { flags: '--yes', help: 'act without asking (needed when there is no terminal to ask on)', section: 'own' }),
] as const;

type PowerCommandFlags = TargetFlags & CommandFlagsIn<'power'> & FlagsOf<typeof POWER_FLAGS>;

/** power's flags in --help order. */
const POWER_LAYOUT: FlagLayout = [POWER_FLAGS, 'target', 'via'];

/** `vconsole power`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addPowerCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('power')
    .description(`Change each VM's power through its platform's API: ${POWER_ACTIONS.join(', ')}.`)
    .argument('<target...>', 'VMs (see Targets), then the action');
  addFlags(defined, POWER_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

Each provider does the action as its own CLI does (libvirt: virsh start, destroy for stop,
shutdown, reboot for restart, reset, suspend, resume; KubeVirt: virtctl start, stop, restart,
pause, unpause, with --force --grace-period=0 for stop and reset; OpenStack: server start,
stop, reboot [--hard], pause, unpause; Proxmox VE: qm start, stop, shutdown, reboot, reset,
suspend, resume). An action a provider lacks, or one the
user may not ask, is refused before any VM acts. On a terminal vconsole asks y/N naming every
VM first (--yes skips it; without a terminal --yes is needed). Each VM gets one line on stderr:
when, who, which VM, what was done; the exit code is 1 if any failed.

Examples:
  vconsole power demo:vm-a stop
  vconsole power libvirt:web1 libvirt:web2 restart --yes`,
    )
    .action(async (operands: string[], flags: PowerCommandFlags, command: Command) => {
      const [{ runPowerCommand, splitTargetsAndAction }, run] = await Promise.all([
        import('./power.js'),
        withGlobalOptions(flags, command),
      ]);
      const { targets, action } = splitTargetsAndAction(operands);
      const terminal = { stdin: process.stdin, stderr: process.stderr };
      process.exitCode = await runPowerCommand(targets, action, run.flags, run.config, io, terminal);
    });
}
