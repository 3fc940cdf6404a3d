// `vconsole open` as a command of the program: its argument, its flags (its own, where they sit
// among the shared ones and the provider options), its help and its action,
// which loads open.ts (and the picker) only when it runs.
import type { Command } from 'commander';
import { keyHelpText } from '../../tui/state/key-help.js';
import type { CommandIo } from '../command-io.js';
import { addFlags, type FlagLayout } from '../flags.js';
import { withGlobalOptions } from '../global-flags.js';
import { shortOrAll } from '../help-all.js';
import { COUNT_FLAGS } from './count.js';
import { GRID_FLAGS } from './grid-flags.js';
import { OPEN_FLAGS, type OpenFlags } from './settings.js';

/** open's flags in --help order: the shared ones by section (src/flags/command-flags.ts), its own where they sit. */
const OPEN_LAYOUT: FlagLayout = [
  'listen',
  'type',
  OPEN_FLAGS,
  'follow',
  COUNT_FLAGS,
  'target',
  'selector',
  'viewer',
  'share',
  'record',
  GRID_FLAGS,
  'join',
  'via',
];

/** `vconsole open`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addOpenCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const openCommand = program
    .command('open')
    .description('Open each target on a local port with a viewer (VNC) or for attaching (serial), all live in a terminal UI.')
    .argument('[target...]', 'consoles to open (see Targets) or @WORKSPACE; none on a terminal: pick from a list');
  addFlags(openCommand, OPEN_LAYOUT);
  openCommand
    .addHelpText(
      'after',
      shortOrAll(
        openCommand,
        `${targetHelp}

Examples:
  vconsole open demo:vm-a demo:vm-b        try it: two built-in demo consoles
  vconsole open vm-a prod/db-1             two KubeVirt VMIs, a viewer for each
  vconsole open -l app=web --grid          the VMIs labelled app=web, live in a grid
  vconsole open                            pick from what every provider lists
In the table, ? shows every key.`,
        `${targetHelp}

Keys:
${keyHelpText()}

Serial consoles (TARGET#serial, --type serial, or a VM without a display) get no viewer.
Enter attaches this terminal; what the VM printed meanwhile comes first. The escape key
(default ^]) brings the table back.
Without a terminal (or with --no-tui), open prints a JSON line on stdout as each console
listens, and logs on stderr, e.g.
  {"target":"default/vm-a","address":"127.0.0.1","port":5901,"type":"vnc"}
A non-loopback --listen shares every VNC console behind TLS (VeNCrypt X509Vnc) and a password
(--password-file, else a generated one shown once). Viewers on this machine give the password
without TLS. --no-share there is refused unless --insecure-expose-unauthenticated.

Examples:
  vconsole open                               pick from what every provider lists (type to filter)
  vconsole open demo:vm-a demo:vm-b
  vconsole open demo:vm-a demo:vm-b#serial
  vconsole open vm-a prod/db-1 --viewer tigervnc
  vconsole open os:web-01 --cloud mycloud --viewer none
  vconsole open vm-a --share                  a second viewer (or a screenshot) kicks nobody
  vconsole open -l app=web --grid             every VM's screen live in one grid
  vconsole open -l app=web,tier!=db --follow  the web VMIs, and those labelled later
  vconsole open --os-tag web --cloud mycloud  every OpenStack server tagged web
  vconsole open @prod-web                     the workspace prod-web of the config file`,
      ),
    )
    .action(async (targets: string[], flags: OpenFlags, command: Command) => {
      const [{ runOpenCommand }, { targetsToOpen }, run] = await Promise.all([
        import('./open.js'),
        import('./picker.js'),
        withGlobalOptions(flags, command),
      ]);
      const chosen = await targetsToOpen(targets, run.flags, run.config);
      // Esc in the picker: nothing to open, and listings still under way need not finish.
      if (!chosen) return io.exit(0);
      await runOpenCommand(chosen.targets, chosen.flags, run.config, io);
    });
}
