// The command line: the commander program, its global flags and each command's, derived from the
// registries, with its help and an action that loads the command's module only when it runs. The
// commands defined beside their modules: open (open/open-command.ts), replay, version, install
// and agent (via-commands.ts), vnc (habits/virtctl.ts) and the completion ones.
import { Command, CommanderError } from 'commander';
import { VERSION } from './version.js';
import { VconsoleError, errorLine, errorStackLines } from './errors.js';
import { addConsoleTypeOption, addListenOptions, addTargetOptions } from './commands/flags.js';
import { withErrorLines } from './commands/commander-errors.js';
import { addGlobalOptions, globalArgs, withGlobalOptions, type GlobalFlags } from './commands/global-flags.js';
import { addViewerOptions } from './commands/viewer-flags.js';
import { addShareOptions } from './commands/share-flags.js';
import { addRecordOptions } from './commands/record-flags.js';
import { addReplayCommand } from './commands/replay-flags.js';
import { addSelectorOptions } from './commands/selector-flags.js';
import { addViaOptions } from './commands/via-flags.js';
import { addViaCommands } from './commands/via-commands.js';
import { addVersionCommand } from './commands/version.js';
import { addOpenCommand } from './commands/open/open-command.js';
import { providerHelp, type ProviderHelp } from './commands/provider-help.js';
import { selectorFlagNames } from './targets/option-groups.js';
// kubectl's and virtctl's habits: -v N, -o FORMAT, `vnc`, `console --timeout`, shell completion.
import { isVerbose, rewriteKubectlVerbosity } from './commands/habits/kubectl-verbosity.js';
import { addVncCommand, consoleWaitFromTimeout, virtctlTimeoutOption } from './commands/habits/virtctl.js';
import { HABITS_HELP } from './commands/habits/help.js';
import { JSON_HELP, outputOption } from './commands/output-format.js';
import { addCompletionCommands } from './commands/completion.js';
import { JOINING_COMMANDS, addJoinOption } from './commands/join-flags.js';
// Types only (erased): each command's flags object, whose declared options type it (src/targets/option-groups.ts).
import type { ConsoleFlags } from './commands/console.js';
import type { ListFlags } from './commands/list.js';
import type { ProxyFlags } from './commands/proxy.js';
import type { PsFlags } from './commands/ps.js';
import type { ScreenshotFlags } from './commands/screenshot.js';
import type { ViewersCommandOptions } from './commands/viewers.js';

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code: number) => process.exit(code),
};

export function buildProgram(providers?: ProviderHelp, withCompletion = true): Command {
  const targetHelp = providers?.targets ?? '';
  const program = new Command('vconsole')
    .description('Open VM consoles (KubeVirt, OpenStack, VNC) as local VNC ports and viewers, many at once.')
    .version(VERSION, '-V, --version', 'print the version');
  addGlobalOptions(program)
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  vconsole open demo:vm-a demo:vm-b          try it with the built-in demo consoles
  vconsole open vm-a prod/db-1               KubeVirt VMIs, one viewer each, in a terminal UI
  vconsole proxy vm-a --port 5901            a local port only, for a viewer elsewhere
  vconsole viewers                           which viewer open would launch here
  vconsole list -A                           the VMs there are to open
${HABITS_HELP}`,
    );

  addRecordOptions(
    addShareOptions(
      addSelectorOptions(
        addTargetOptions(
          addConsoleTypeOption(
            addListenOptions(
              program
                .command('proxy')
                .description(
                  'Serve each target on a local port for a viewer elsewhere: VNC for a VNC viewer, a serial line as raw TCP (nc, socat, telnet).',
                )
                .argument('[target...]', 'consoles to serve (see Targets), @WORKSPACE from the config file')
                .option(
                  '--follow',
                  `with ${selectorFlagNames().join('/')}: keep asking, serve VMs that start matching or running (a JSON line each)`,
                ),
            ),
          ),
        ),
      ),
    ),
  )
    .addHelpText(
      'after',
      `${targetHelp}

Prints one JSON line per console once all listen (a console named twice is served once), e.g.
  {"target":"default/vm-a","address":"127.0.0.1","port":5901,"type":"vnc"}
Every client connection gets a fresh console session; Ctrl+C closes everything. With --share
every viewer shares one console session instead (KubeVirt keeps one per VM: nobody is kicked),
and viewers stay connected while the console drops and comes back. A non-loopback --listen
implies --share: viewers speak TLS with the listener's certificate (VNC: VeNCrypt X509Vnc;
serial: a password line inside TLS) and give a password (--password-file, else a generated one
printed once); --no-share there, and SPICE consoles, which no password protects, are refused
unless --insecure-expose-unauthenticated (keep them on loopback and use ssh -L).

Examples:
  vconsole proxy demo:vm-a
  vconsole proxy vm-a vm-b --port 5901
  vconsole proxy prod/db-1 --context prod --listen 0.0.0.0 --port 5901
  vconsole proxy os:web-01 --cloud mycloud
  vconsole proxy -l app=web -n prod -n staging       every VMI labelled app=web in both namespaces
  vconsole proxy vm-a --share --port 5901             several viewers on one KubeVirt VNC session
  vconsole proxy vm-a --share --listen 0.0.0.0 --password-file ~/.vconsole-pass
  vconsole proxy tcp://10.0.0.5:5900 --share --vnc-password-file ~/.vncpass`,
    )
    .action(async (targets: string[], flags: ProxyFlags, command: Command) => {
      const [{ runProxyCommand }, run] = await Promise.all([import('./commands/proxy.js'), withGlobalOptions(flags, command)]);
      await runProxyCommand(targets, run.flags, run.config, io);
    });

  addOpenCommand(program, targetHelp, io);

  addRecordOptions(
    addTargetOptions(
      program
        .command('console')
        .description("Attach this terminal to a VM's serial console (or pipe stdin/stdout through it).")
        .argument('<target>', 'the console to attach (see Targets)')
        .option('--escape <key>', 'the key that leaves the console (default: ^], as virtctl)')
        .option('--log <file>', 'append everything the VM prints to FILE (created 0600)')
        .option(
          '--wait <duration>',
          'keep trying this long (e.g. 5m) for the VM to run, and reconnect when the console drops (default: 0, fail at once)',
        )
        .addOption(virtctlTimeoutOption()),
    ),
  )
    .addHelpText(
      'after',
      `${targetHelp}

On a terminal: raw mode, every key (Ctrl+C too) goes to the VM until the escape key; the
terminal is restored on every way out. Without a terminal: stdin goes to the VM and its output
to stdout, until stdin ends and the output has drained.

Examples:
  vconsole console vm-a
  vconsole console prod/db-1 --escape ^b --log db-1.log
  vconsole console vm-a --wait 5m
  vconsole console vm-a --timeout 5              virtctl's spelling: wait up to 5 minutes
  printf 'root\\n' | vconsole console vm-a > out.txt`,
    )
    .action(async (target: string, flags: ConsoleFlags, command: Command) => {
      const [{ runConsoleCommand }, run] = await Promise.all([import('./commands/console.js'), withGlobalOptions(flags, command)]);
      await runConsoleCommand(target, consoleWaitFromTimeout(run.flags), run.config, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    });

  // --preserve-session is not offered: screenshot preserves a KubeVirt session unless --take-over.
  addTargetOptions(
    program
      .command('screenshot')
      .description("Save a PNG of each VNC console's screen, without kicking anyone off a shared console.")
      .argument('<target...>', 'consoles to picture (see Targets)')
      .option(
        '-o, --output <path>',
        'FILE (one target), DIR (NAME.png each; a trailing / or several targets mean a directory, created when absent), or - for stdout (default: NAME.png here)',
      )
      .option('--vnc-password-file <file>', 'tcp/unix VNC servers that ask for a password: its first line')
      .option('--take-over', "KubeVirt: take the VM's VNC session even when a viewer holds it (default: refuse, kicking nobody)"),
  )
    .addHelpText(
      'after',
      `${targetHelp}

The written paths are said on stderr; with -o - the PNG alone goes to stdout. Each console
that fails gets one line; the exit code is 1 if any failed.

Examples:
  vconsole screenshot demo:vm-a
  vconsole screenshot vm-a prod/db-1 -o shots/
  vconsole screenshot tcp://127.0.0.1:5900 -o - > screen.png
  vconsole screenshot unix:///run/vm/vnc.sock --vnc-password-file ~/.vncpass -o vm.png`,
    )
    .action(async (targets: string[], flags: ScreenshotFlags, command: Command) => {
      const [{ runScreenshotCommand }, run] = await Promise.all([import('./commands/screenshot.js'), withGlobalOptions(flags, command)]);
      process.exitCode = await runScreenshotCommand(targets, run.flags, run.config, io);
    });

  addViewerOptions(
    program.command('viewers').description('List the VNC viewers found on this machine and the command line `open` would run for each VM.'),
  )
    .addOption(outputOption('viewer id'))
    .option('--json', JSON_HELP)
    .addHelpText(
      'after',
      `
Examples:
  vconsole viewers
  vconsole viewers --json
  vconsole viewers -o name                   the ids --viewer takes, of the viewers found
  vconsole viewers --viewer tigervnc --viewer-arg -FullScreen`,
    )
    .action(async (flags: ViewersCommandOptions) => {
      const { runViewersCommand } = await import('./commands/viewers.js');
      await runViewersCommand(flags, { stdout: io.stdout });
    });

  addSelectorOptions(
    addTargetOptions(
      program
        .command('list')
        .description('List the VMs vconsole can open, with their state.')
        .option('--provider <name>', providers?.listProviders ?? 'the provider to ask')
        .addOption(outputOption('target'))
        .option('--json', JSON_HELP),
    ),
  )
    .addHelpText(
      'after',
      `
Finding nothing is an answer, not an error (exit 0): stderr says where it looked, e.g.
  no VMs found: searched VMIs in namespace "prod" of cluster https://10.0.0.1:6443 (context lab)

Examples:
  vconsole list
  vconsole list -n prod
  vconsole list -l app=web -A
  vconsole list --os-filter '^web-' --os-tag prod
  vconsole list --provider openstack --cloud mycloud --json
  vconsole list -A -o wide                   with provider and namespace columns
  vconsole list -o name                      one target a line, for scripts and completion`,
    )
    .action(async (flags: ListFlags, command: Command) => {
      const [{ runListCommand }, run] = await Promise.all([import('./commands/list.js'), withGlobalOptions(flags, command)]);
      process.exitCode = await runListCommand(run.flags, run.config, io);
    });

  for (const command of program.commands.filter((c) => JOINING_COMMANDS.includes(c.name()))) addJoinOption(command);

  program
    .command('ps')
    .description('List the consoles your vconsoles hold on this machine: your other vconsole commands join them instead of dialling again.')
    .addOption(outputOption('TARGET#KIND'))
    .option('--json', JSON_HELP)
    .addHelpText(
      'after',
      `
The first vconsole that holds a console (open, proxy --share) shares it with your later vconsole
commands on this machine (open, proxy, console, screenshot): they join it through a socket only
you may use, so KubeVirt's one VNC and one serial session per VM kicks nobody. --no-join on
those commands dials the console itself instead.

Examples:
  vconsole ps
  vconsole ps -o json`,
    )
    .action(async (flags: PsFlags) => {
      const { runPsCommand } = await import('./commands/ps.js');
      process.exitCode = await runPsCommand(flags, io);
    });

  addReplayCommand(program, io);
  addViaOptions(program);

  addViaCommands(program, io);

  addVncCommand(program, async (args) => {
    await buildProgram(providers, false).parseAsync([...globalArgs(program.opts<GlobalFlags>()), ...args], { from: 'user' });
  });
  if (withCompletion) {
    addCompletionCommands(
      program,
      () => buildProgram(providers, false),
      async () => (await import('./config/config.js')).loadConfig(program.opts<GlobalFlags>().config),
      { write: (text) => io.stdout.write(text), exit: () => io.exit(0) },
    );
  }

  addVersionCommand(program, io);

  withErrorLines(program);
  return program;
}

/** Runs the CLI; every error becomes one line on stderr and exit code 1 (runtime) or 2 (usage). */
export async function main(argv: string[]): Promise<void> {
  // A reader that went away (`vconsole --help | head -3`) is not vconsole's failure: drop what
  // it would have read, and carry on closing consoles and viewers as usual.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const args = [...argv.slice(0, 2), ...rewriteKubectlVerbosity(argv.slice(2))];
  const program = buildProgram(await providerHelp(args));
  try {
    await program.parseAsync(args);
  } catch (err) {
    // What commander had read of the global flags when it failed, else what the line says.
    const verbose = isVerbose(program.opts<GlobalFlags>()) || args.includes('--verbose') || args.includes('-v');
    process.exitCode = reportError(err, verbose);
  }
}

function reportError(err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // commander already printed its message (help and --version exit 0)
    return err.exitCode === 0 ? 0 : 2;
  }
  const lines = [errorLine(err), ...(verbose ? errorStackLines(err) : [])];
  process.stderr.write(`${lines.join('\n')}\n`);
  // A UsageError is a VconsoleError with exit code 2.
  return err instanceof VconsoleError ? err.exitCode : 1;
}
