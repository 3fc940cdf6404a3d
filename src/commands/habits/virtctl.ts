// virtctl's spellings as vconsole's commands, a thin layer: `vnc VM` is `open --type vnc VM`,
// `vnc --proxy-only` is `proxy --type vnc` (whose JSON line holds virtctl's `{"port":N}`),
// `--address` is `--listen`, `--vnc-type`/`--vnc-path` are `--viewer`; `console --timeout N`
// (minutes) is `console --wait Nm`. Each alias is rewritten to the command it stands for and run
// as that command, so it behaves as that command does, flags, defaults and errors alike.
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { switchOption, valueOption, type FlagsOf } from '../../targets/option-group.js';
import { echoInput } from '../../text/terminal-text.js';
import { addFlags, parseListenAddress, parsePort } from '../flags.js';

/** virtctl's vnc flags, declared as every flag is (src/targets/option-group.ts). */
const VNC_FLAGS = [
  switchOption('proxyOnly', {
    flags: '--proxy-only',
    help: 'serve the local port and print it as JSON, launch no viewer (vconsole proxy)',
    section: 'own',
  }),
  valueOption('port', { flags: '--port <port>', help: 'the local port (as -p/--port)', section: 'own', parse: parsePort }),
  valueOption('address', {
    flags: '--address <address>',
    help: 'the address to listen on (as --listen)',
    section: 'own',
    parse: parseListenAddress,
  }),
  valueOption('vncType', {
    flags: '--vnc-type <type>',
    help: 'the viewer: tiger, chicken, real, remote-viewer (as --viewer)',
    section: 'own',
  }),
  valueOption('vncPath', { flags: '--vnc-path <path>', help: "the viewer's executable (as --viewer PATH)", section: 'own' }),
] as const;

/** virtctl's vnc flags, as commander reads them. */
type VirtctlVncFlags = FlagsOf<typeof VNC_FLAGS>;

/**
 * `vconsole vnc`: virtctl's flags are its own; any other word (a target, `--context`, `-n`,
 * `--share`, ...) is handed to open, or proxy with --proxy-only, which checks it.
 */
export function addVncCommand(program: Command, run: (args: string[]) => Promise<void>): void {
  const vnc = program
    .command('vnc')
    .description(
      "virtctl's vnc: open each VM's VNC console in a viewer (open --type vnc); --proxy-only serves the port alone (proxy --type vnc).",
    )
    .argument('[target...]', 'VMs whose VNC console to open (see vconsole open --help), with any flag of open (or proxy)');
  addFlags(vnc, [VNC_FLAGS])
    .allowUnknownOption()
    .addHelpText(
      'after',
      `
Examples:
  vconsole vnc vm-a                          as virtctl vnc vm-a: a viewer on its VNC console
  vconsole vnc vm-a --proxy-only --port 5901 the port only, one JSON line: {"target":...,"port":5901}
  vconsole vnc vm-a -n prod --vnc-type tiger --share`,
    )
    .action(async (words: string[], flags: VirtctlVncFlags) => run(vncAsVconsole(words, flags)));
}

/** The vconsole command line `vnc WORDS FLAGS` stands for. */
export function vncAsVconsole(words: readonly string[], flags: VirtctlVncFlags): string[] {
  const viewer = flags.vncPath ?? flags.vncType;
  if (flags.proxyOnly && viewer !== undefined)
    throw new UsageError(
      `--proxy-only launches no viewer: ${flags.vncPath ? '--vnc-path' : '--vnc-type'} means nothing with it`,
      'leave one out',
    );
  return [
    flags.proxyOnly ? 'proxy' : 'open',
    '--type',
    'vnc',
    ...(flags.port === undefined ? [] : ['--port', String(flags.port)]),
    ...(flags.address === undefined ? [] : ['--listen', flags.address]),
    ...(viewer === undefined ? [] : ['--viewer', viewer]),
    ...words,
  ];
}

/** `console --timeout N`: virtctl's minutes to wait for the VM to run, beside vconsole's `--wait`. */
export const VIRTCTL_TIMEOUT_FLAG = valueOption('timeout', {
  flags: '--timeout <minutes>',
  help: "virtctl's --timeout: minutes to wait for the VM to run (as --wait Nm)",
  section: 'own',
  parse: parseMinutes,
});

/** `--timeout 5` is 5 minutes, as virtctl counts; `--timeout 90s` says its unit. */
export function parseMinutes(text: string): string {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return `${trimmed}m`;
  if (/^\d+(?:\.\d+)?(?:ms|s|m|h)$/.test(trimmed)) return trimmed;
  throw new UsageError(`invalid --timeout "${echoInput(text)}"`, 'give minutes, as virtctl: --timeout 5 (or a duration: 90s, 1h)');
}

/** The console flags with `--timeout` as `--wait`; both at once is a contradiction. */
export function consoleWaitFromTimeout<F extends { wait?: string; timeout?: string }>(flags: F): F {
  if (flags.timeout === undefined) return flags;
  if (flags.wait !== undefined) throw new UsageError('--timeout and --wait both say how long to wait', 'give one of them');
  return { ...flags, wait: flags.timeout };
}
