// `--via [user@]bastion[:port]` for open, proxy, console, screenshot and list: the far vconsole
// (run over the user's ssh) resolves, lists and dials; here the consoles are ConsoleTargets
// like any other, so sharing, recording, viewers and the TUI are what they always are.
import type { VconsoleConfig } from '../config/index.js';
import { UsageError, VconsoleError } from '../errors.js';
import type { ConsoleTarget } from '../targets/types.js';
import { parseViaAddress, farCommandFrom, isFarTarget, sshCommandFrom, RemoteTarget, ViaLink } from '../via/index.js';
import { parseDuration } from './duration.js';
import type { ViaFlags } from './via-flags.js';
import type { Selection as TargetSelection } from './target-selection.js';

/** The link --via (or `defaults.via`) asks for, or undefined. */
export function viaLinkFrom(
  flags: ViaFlags & { wait?: string },
  config: VconsoleConfig,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ViaLink | undefined {
  const text = flags.via ?? config.defaults.via;
  if (!text) return undefined;
  return new ViaLink({
    address: parseViaAddress(text),
    sshCommand: sshCommandFrom(env),
    farCommand: farCommandFrom(env),
    waitMs: flags.wait === undefined ? 0 : parseDuration(flags.wait),
    say,
    verbose: flags.verbose,
  });
}

/**
 * Runs what a command does with the link (if any). When that fails, the link ends with it: ssh
 * and the far agent would otherwise keep the process running after its error line.
 */
export async function closingLinkOnFailure<T>(link: ViaLink | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    link?.close();
    throw err;
  }
}

/** The flags the far side reads (what selects and resolves consoles), without what is only for here. */
function farFlags(flags: object): Record<string, unknown> {
  const sent = JSON.parse(JSON.stringify(flags)) as Record<string, unknown>;
  delete sent.via;
  delete sent.wait;
  return sent;
}

/** What selectTargets gives, asked of the far side: the named consoles and what the selectors found there. */
export async function selectViaTargets(link: ViaLink, inputs: string[], flags: object, { follow = false } = {}): Promise<TargetSelection> {
  if (follow) throw new UsageError('--follow does not work with --via yet', 'name the VMs, or run vconsole on the bastion');
  const sent = farFlags(flags);
  const result = (await link.request('select', { inputs, flags: sent })) as { named?: unknown[]; selected?: unknown[] };
  const targets = (list: unknown[] | undefined) => (list ?? []).filter(isFarTarget).map((far) => new RemoteTarget(link, far, sent));
  return { named: targets(result.named), selected: targets(result.selected) };
}

/** The named consoles resolved on the far side, in order. */
export async function resolveViaTargets(
  link: ViaLink,
  inputs: string[],
  flags: object,
  { preserveSession }: { preserveSession?: boolean } = {},
): Promise<ConsoleTarget[]> {
  const sent = farFlags(flags);
  const result = await link.request('resolve', { inputs, flags: sent, preserveSession });
  const targets = (Array.isArray(result) ? result : []).filter(isFarTarget).map((far) => new RemoteTarget(link, far, sent));
  if (targets.length !== inputs.length) throw new VconsoleError(`${link.host} resolved ${targets.length} of ${inputs.length} consoles`);
  return targets;
}

/** `list --via`: the far side's listing, as it printed it; its exit code. */
export async function listVia(
  link: ViaLink,
  flags: object,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const result = (await link.request('list', { flags: farFlags(flags) })) as { stdout?: unknown; stderr?: unknown; code?: unknown };
  if (typeof result.stdout === 'string') io.stdout.write(result.stdout);
  if (typeof result.stderr === 'string') io.stderr.write(result.stderr);
  return typeof result.code === 'number' ? result.code : 1;
}
