// `vconsole power TARGET... ACTION`: start, stop, restart, reset, pause, resume or shut down each
// VM through its provider's own API. Every VM is checked first (the provider offers the action,
// the user may ask it); a person confirms on a terminal (or --yes); then each acts, one line each.
import type { VconsoleConfig } from '../config/index.js';
import { UsageError, errorLine } from '../errors.js';
import { POWER_ACTIONS, type ConsoleTarget, type PowerAction } from '../targets/index.js';
import { askYesNo, canAsk, type PromptTerminal } from '../terminal/yes-no.js';
import { terminalSafe } from '../text/terminal-text.js';
import { reportActions } from './acting.js';
import { namingTarget, type CommandIo } from './command-io.js';
import type { TargetFlags } from './flags.js';
import { resolveTargets, targetOptionsFrom } from './target-options.js';
import { resolveViaTargets, viaLinkFrom } from './via.js';
import type { ViaFlags } from '../flags/command-flags.js';

/** How long one VM's check or action may take. */
export const POWER_TIMEOUT_MS = 120_000;

export type PowerFlags = TargetFlags & ViaFlags & { yes?: boolean };

/** The targets and the action of `power TARGET... ACTION` (the action is the last word). */
export function splitTargetsAndAction(operands: readonly string[]): { targets: string[]; action: PowerAction } {
  const word = operands[operands.length - 1] ?? '';
  const action = POWER_ACTIONS.find((a) => a === word.toLowerCase());
  if (operands.length < 2 || !action)
    throw new UsageError(
      operands.length < 2 ? 'name the VMs and then what to do' : `"${terminalSafe(word)}" is no power action`,
      `end with one of ${POWER_ACTIONS.join(', ')}, e.g. vconsole power vm-a restart`,
    );
  return { targets: operands.slice(0, -1), action };
}

/** A target's power capability; a usage error naming its provider when it has none. */
export function powerOf(target: ConsoleTarget): NonNullable<NonNullable<ConsoleTarget['capabilities']>['power']> {
  const power = target.capabilities?.power;
  if (!power)
    throw new UsageError(
      `${target.name}: vconsole cannot change the power of a ${target.provider} console`,
      'name a VM of a cloud or hypervisor',
    );
  return power;
}

/** Runs `each` on every target in parallel; the failures, named by target. */
async function onEach(
  targets: readonly ConsoleTarget[],
  each: (target: ConsoleTarget) => Promise<string>,
): Promise<PromiseSettledResult<string>[]> {
  return Promise.allSettled(targets.map(async (target) => each(target)));
}

/** Asks y/N naming every VM unless --yes; a usage error when nobody can answer. */
async function confirmed(action: PowerAction, targets: readonly ConsoleTarget[], yes: boolean, terminal: PromptTerminal): Promise<boolean> {
  if (yes) return true;
  const names = targets.map((t) => t.name).join(', ');
  if (!canAsk(terminal))
    throw new UsageError(
      `power ${action} asks before it acts on ${names}, and there is no terminal to ask on`,
      'add --yes to do it without asking',
    );
  return askYesNo(`${action} ${targets.length === 1 ? 'VM' : `${targets.length} VMs`}: ${names}? [y/N] `, terminal);
}

/** `vconsole power TARGET... ACTION`: resolves with the exit code (2 refused before anything acted, 1 if any VM failed). */
export async function runPowerCommand(
  inputs: string[],
  action: PowerAction,
  flags: PowerFlags,
  config: VconsoleConfig,
  io: CommandIo,
  terminal: PromptTerminal,
): Promise<number> {
  const say = (text: string) => io.stderr.write(`${terminalSafe(text)}\n`);
  const via = viaLinkFrom(flags, config, say);
  try {
    const targets = via ? await resolveViaTargets(via, inputs, flags) : resolveTargets(inputs, targetOptionsFrom(flags, config), config);
    targets.forEach(powerOf);
    const checks = await onEach(targets, (target) => powerOf(target)(AbortSignal.timeout(POWER_TIMEOUT_MS), action, 'check'));
    const refusals = checks.flatMap((check, i) => (check.status === 'rejected' ? [namingTarget(targets[i].name, check.reason)] : []));
    if (refusals.length > 0) {
      refusals.forEach((refusal) => io.stderr.write(`${errorLine(refusal)}\n`));
      say('nothing done');
      return refusals.some((refusal) => refusal.exitCode === 2) ? 2 : 1;
    }
    if (!(await confirmed(action, targets, flags.yes === true, terminal))) {
      say('nothing done');
      return 1;
    }
    const results = await onEach(targets, (target) => powerOf(target)(AbortSignal.timeout(POWER_TIMEOUT_MS), action, 'act'));
    return reportActions(results, targets, (done) => `power ${action}: ${done}`, io);
  } finally {
    via?.close();
  }
}
