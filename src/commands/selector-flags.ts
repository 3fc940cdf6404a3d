import net from 'node:net';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { normalizeLabelSelector } from '../targets/kubevirt/label-selector.js';
import { echoInput } from '../text/terminal-text.js';
import { asArgParser, kubectlShortForm } from './flags.js';

/** The flags that pick VMs by what they are rather than by name (open, proxy, list). */
export interface SelectionFlags {
  /** `-l`: a KubeVirt label selector, checked and spelled canonically. */
  selector?: string;
  /** `-A`: every namespace. */
  allNamespaces?: boolean;
  /** `-n`, once or repeated (src/commands/flags.ts collects it). */
  namespace?: string | string[];
  /** `--os-filter`: a regular expression over OpenStack server names. */
  osFilter?: string;
  /** `--os-tag`, repeatable: every tag must be on the server. */
  osTag?: string[];
}

/** `-l`'s parser. `-l` was --listen's short form before: an address gets a pointer to --listen. */
export function parseSelectorFlag(text: string): string {
  if (net.isIP(text.replace(/^\[(.*)\]$/, '$1')) || text === 'localhost') {
    throw new UsageError(`-l ${echoInput(text)} looks like a listen address, but -l is --selector (a label selector, as in kubectl)`, `use --listen ${echoInput(text)}`);
  }
  return normalizeLabelSelector(text);
}

/** `--os-filter`: a regular expression both Nova and vconsole can read. */
export function parseNameRegex(text: string): string {
  try {
    new RegExp(text);
  } catch (err) {
    throw new UsageError(`bad --os-filter "${echoInput(text)}": ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`, 'give a regular expression over server names, e.g. ^web-');
  }
  return text;
}

/** `--os-tag`: Nova tags hold no comma or slash. */
export function parseServerTag(text: string): string {
  if (!text || /[,/]/.test(text) || text.length > 60) {
    throw new UsageError(`bad --os-tag "${echoInput(text)}"`, 'a Nova tag is 1 to 60 characters without "," or "/"; repeat --os-tag for several');
  }
  return text;
}

/** `-l`, `-A`, `--os-filter`, `--os-tag`; `--namespace` comes with the target options. */
export function addSelectorOptions(command: Command): Command {
  return command
    .option('-l, --selector <selector>', "KubeVirt: the VMIs whose labels match, in kubectl's syntax (app=web,tier!=db, 'env in (a,b)', !legacy)", asArgParser(kubectlShortForm(parseSelectorFlag)))
    .option('-A, --all-namespaces', 'KubeVirt: every namespace (default: the current one, or each --namespace); beside a bare name, the one namespace holding it')
    .option('--os-filter <regex>', 'OpenStack: the servers whose name matches this regular expression', asArgParser(parseNameRegex))
    .option('--os-tag <tag>', 'OpenStack: the servers with this tag (repeat: with all of them)', (text: string, previous: string[] | undefined) => [...(previous ?? []), asArgParser(parseServerTag)(text)]);
}

/** Every `-n` given, in order, once each. */
export function namespacesOf(flags: { namespace?: string | string[] }): string[] {
  const given = flags.namespace === undefined ? [] : [flags.namespace].flat();
  return [...new Set(given)];
}
