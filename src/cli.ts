import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createRequire } from 'node:module';
import { UsageError, VconsoleError, describeError, redactSecrets } from './errors.js';
import { addTargetOptions, parseListenAddress, parsePort } from './commands/flags.js';

const VERSION: string = (() => {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return process.env.VCONSOLE_VERSION ?? '0.0.0';
  }
})();

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code: number) => process.exit(code),
};

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

const TARGET_HELP = `
Targets:
  NAME, NS/NAME, kubevirt:[NS/]NAME   KubeVirt VMI (kubeconfig as kubectl reads it)
  openstack:NAME|ID, os:NAME|ID       OpenStack server (clouds.yaml / OS_* as the openstack CLI reads them)
  ws://HOST:PORT/?token=T, wss://...  websockify / noVNC console URL
  tcp://HOST:PORT                     plain VNC server (e.g. a hypervisor's 5900+N)
  unix:///PATH                        VNC unix socket on this host (QEMU, libvirt)
  demo:NAME                           built-in demo console, no cloud needed`;

export function buildProgram(): Command {
  const program = new Command('vconsole')
    .description('Open VM consoles (KubeVirt, OpenStack, VNC) as local VNC ports and viewers, many at once.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('-v, --verbose', 'log more, and show stack traces of errors')
    .option('--config <file>', 'config file (default: $XDG_CONFIG_HOME/vconsole/config.yaml or ~/.config/vconsole/config.yaml)')
    .exitOverride();

  addTargetOptions(
    program
      .command('proxy')
      .description('Serve each target on a local port for a VNC viewer elsewhere (no viewer is launched).')
      .argument('<target...>', 'consoles to serve (see Targets)')
      .option('-p, --port <port>', 'first local port; targets get PORT, PORT+1, ... (default: free ports)', asArgParser(parsePort))
      .addOption(
        new Option('-l, --listen <address>', 'address to listen on (default: 127.0.0.1); anything but loopback exposes the console')
          .argParser(asArgParser(parseListenAddress)),
      ),
  )
    .addHelpText(
      'after',
      `${TARGET_HELP}

Prints one JSON line per target once it listens, e.g.
  {"target":"default/vm-a","address":"127.0.0.1","port":5901}
Every client connection gets a fresh console session; Ctrl+C closes everything.

Examples:
  vconsole proxy demo:vm-a
  vconsole proxy vm-a vm-b --port 5901
  vconsole proxy prod/db-1 --context prod --listen 0.0.0.0 --port 5901
  vconsole proxy os:web-01 --cloud mycloud`,
    )
    .action(async (targets: string[], flags, command: Command) => {
      const [{ runProxyCommand }, { loadConfig }] = await Promise.all([import('./commands/proxy.js'), import('./config.js')]);
      const globals = command.optsWithGlobals();
      await runProxyCommand(targets, { ...flags, verbose: globals.verbose }, loadConfig(globals.config), io);
    });

  program
    .command('version')
    .description('Print the version; with --verbose also the Node.js runtime and platform.')
    .addHelpText('after', '\nExamples:\n  vconsole version\n  vconsole version --verbose')
    .action((_flags, command: Command) => {
      io.stdout.write(`${VERSION}\n`);
      if (command.optsWithGlobals().verbose) {
        const runtime = isSingleExecutable() ? 'embedded Node.js' : 'Node.js';
        io.stdout.write(`${runtime} ${process.version}\nplatform ${process.platform}-${process.arch}\n`);
      }
    });

  return program;
}

/** True inside the single executable (Node SEA). */
function isSingleExecutable(): boolean {
  try {
    return Boolean((createRequire(import.meta.url)('node:sea') as { isSea(): boolean }).isSea());
  } catch {
    return false;
  }
}

/** Runs the CLI; every error becomes one line on stderr and exit code 1 (runtime) or 2 (usage). */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = reportError(err, verbose);
  }
}

function reportError(err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // commander already printed its message (help and --version exit 0)
    return err.exitCode === 0 ? 0 : 2;
  }
  const line = `vconsole: ${describeError(err)}`;
  process.stderr.write(`${line}\n`);
  if (verbose && err instanceof Error && err.stack) {
    process.stderr.write(`${redactSecrets(err.stack)}\n`);
    if (err.cause instanceof Error && err.cause.stack) process.stderr.write(`caused by: ${redactSecrets(err.cause.stack)}\n`);
  }
  if (err instanceof VconsoleError) return err.exitCode;
  return err instanceof UsageError ? 2 : 1;
}
