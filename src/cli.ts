// The command line: the commander program, its global flags and its commands, each defined
// beside its module (src/commands/*-command.ts, open/open-command.ts, replay-command.ts,
// via-commands.ts, habits/virtctl.ts, completion.ts, version.ts) with its flags, help and an
// action that loads the command's module only when it runs. Flags are declarations: the shared
// ones in src/flags/command-flags.ts, the providers' in src/targets/*/options.ts.
import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import { VERSION } from './version.js';
import { VconsoleError, errorLine, errorStackLines } from './errors.js';
import { withErrorLines } from './commands/commander-errors.js';
import { addGlobalOptions, globalArgs, type GlobalFlags } from './commands/global-flags.js';
import { acceptHelpAllEverywhere } from './commands/help-all.js';
import { addProxyCommand } from './commands/proxy-command.js';
import { addOpenCommand } from './commands/open/open-command.js';
import { addConsoleCommand } from './commands/console-command.js';
import { addScreenshotCommand } from './commands/screenshot-command.js';
import { addTypeCommand } from './commands/type-command.js';
import { addSendCommand } from './commands/send-command.js';
import { addWaitCommand } from './commands/wait-command.js';
import { addRunCommand } from './commands/run-command.js';
import { addPowerCommand } from './commands/power-command.js';
import { addViewersCommand } from './commands/viewers-command.js';
import { addListCommand } from './commands/list-command.js';
import { addPsCommand } from './commands/ps-command.js';
import { addReplayCommand } from './commands/replay-command.js';
import { addViaCommands } from './commands/via-commands.js';
import { addVersionCommand } from './commands/version.js';
import { providerHelp, type ProviderHelp } from './commands/provider-help.js';
// kubectl's and virtctl's habits: -v N, -o FORMAT, `vnc`, `console --timeout`, shell completion.
import { isVerbose, rewriteKubectlVerbosity } from './commands/habits/kubectl-verbosity.js';
import { flagsAfterVerb } from './commands/habits/flags-before-verb.js';
import { addVncCommand } from './commands/habits/virtctl.js';
import { HABITS_HELP } from './commands/habits/help.js';
import { addCompletionCommands } from './commands/completion.js';
import { completionMain, isCompletionRequest } from './commands/completion-tab.js';

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code: number) => process.exit(code),
};

/** The program with its commands, in the order `vconsole --help` lists them; `providers` fills the help that names them. */
export function buildProgram(providers?: ProviderHelp, withCompletion = true, name = 'vconsole'): Command {
  const targetHelp = providers?.targets ?? '';
  const program = new Command(name)
    .description('Open VM consoles (KubeVirt, OpenStack, Proxmox VE, libvirt, plain VNC) as local ports and viewers, many at once.')
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

vconsole COMMAND --help shows a command's common flags, --help-all every flag.
${HABITS_HELP}`,
    );
  addProxyCommand(program, targetHelp, io);
  addOpenCommand(program, targetHelp, io);
  addConsoleCommand(program, targetHelp);
  addScreenshotCommand(program, targetHelp, io);
  addTypeCommand(program, targetHelp, io);
  addSendCommand(program, targetHelp, io);
  addWaitCommand(program, targetHelp, io);
  addRunCommand(program, targetHelp, io);
  addPowerCommand(program, targetHelp, io);
  addViewersCommand(program, io);
  addListCommand(program, providers?.listProviders, io);
  addPsCommand(program, io);
  addReplayCommand(program, io);
  addViaCommands(program, io);
  addVncCommand(program, async (args) => {
    await buildProgram(providers, false).parseAsync([...globalArgs(program.opts<GlobalFlags>()), ...args], { from: 'user' });
  });
  if (withCompletion) {
    addCompletionCommands(program, () => buildProgram(providers, false), {
      write: (text) => io.stdout.write(text),
      exit: () => io.exit(0),
    });
  }
  addVersionCommand(program, io);
  acceptHelpAllEverywhere(program);
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
  if (isCompletionRequest(args.slice(2))) return completionMain(args.slice(2), async () => buildProgram(undefined, false));
  const program = buildProgram(await providerHelp(args), true, programName(argv));
  try {
    await program.parseAsync([...args.slice(0, 2), ...flagsAfterVerb(program, args.slice(2))]);
  } catch (err) {
    // What commander had read of the global flags when it failed, else what the line says.
    const verbose = isVerbose(program.opts<GlobalFlags>()) || args.includes('--verbose') || args.includes('-v');
    process.exitCode = reportError(err, verbose);
  }
}

/**
 * What vconsole is called as: kubectl runs a plugin found on PATH as kubectl-NAME (a link to
 * vconsole, or a copy of the single executable, named kubectl-vconsole), so its usage lines say
 * `kubectl vconsole`. The npm launcher's name is argv[1]; the single executable's, argv0.
 */
export function programName(argv: readonly string[], argv0 = process.argv0): string {
  const invoked = [argv0, argv[1] ?? ''].map((file) => basename(file).replace(/\.(c?js|exe)$/i, ''));
  return invoked.includes('kubectl-vconsole') ? 'kubectl vconsole' : 'vconsole';
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
