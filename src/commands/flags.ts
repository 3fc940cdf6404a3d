import net from 'node:net';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError, describeError } from '../errors.js';
import { parseConsoleType } from '../targets/console-type.js';
import type { ConsoleTypeChoice } from '../targets/types.js';
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

/** Flags shared by every command that opens consoles (proxy, open, list). Cheap to import. */
export function addTargetOptions(command: Command): Command {
  return command
    .option('--kubeconfig <file>', 'KubeVirt: kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)', nonEmpty('a kubeconfig file'))
    .option('--context <name>', 'KubeVirt: kubeconfig context to use', nonEmpty('a context name'))
    .option('-n, --namespace <ns>', "KubeVirt: namespace of bare VM names (default: the context's, else default); repeated: search several (a bare name is looked for in them)", repeatable(kubectlShortForm(nonEmpty('a namespace'))))
    .option('--preserve-session', 'KubeVirt: refuse to take over a VNC session another client holds')
    .option('--cloud <name>', 'OpenStack: cloud from clouds.yaml (default: $OS_CLOUD, else the OS_* variables)', nonEmpty('a cloud name'))
    .addOption(new Option('--os-cloud <name>', 'the openstack CLI spelling of --cloud').argParser(nonEmpty('a cloud name')).hideHelp())
    .option('--os-region <name>', 'OpenStack: region (default: the cloud\'s, else $OS_REGION_NAME)', nonEmpty('a region name'))
    .addOption(new Option('--os-interface <interface>', 'OpenStack: endpoint interface (default: public)').choices(['public', 'internal', 'admin']))
    .option('--insecure', 'ws(s)/OpenStack: do not verify TLS certificates')
    .option('--ca <file>', 'ws(s)/OpenStack: CA certificate file to verify TLS with', nonEmpty('a CA file'));
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
function repeatable(parse: (text: string) => string): (text: string, previous: string | string[] | undefined) => string | string[] {
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
  return command.option(
    '-t, --type <type>',
    'console type: vnc, serial, spice or auto (default: auto, the screen when the VM has one, else its serial console); TARGET#TYPE sets it for one target',
    asArgParser((text) => parseConsoleType(text)),
  );
}

export interface TargetFlags {
  /** `--type`: which console of each VM (a target's own `#TYPE` wins). */
  type?: ConsoleTypeChoice;
  kubeconfig?: string;
  context?: string;
  /** One `-n`, or several (the first is the namespace of bare names). */
  namespace?: string | string[];
  preserveSession?: boolean;
  cloud?: string;
  osCloud?: string;
  osRegion?: string;
  osInterface?: 'public' | 'internal' | 'admin';
  insecure?: boolean;
  ca?: string;
  verbose?: boolean;
}

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
