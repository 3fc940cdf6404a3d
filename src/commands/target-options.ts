// From flags and config to what providers read: the merge is derived from the option
// declarations, and typed names resolve through aliases to targets.
import { expandAlias, type VconsoleConfig } from '../config/index.js';
import { splitConsoleType } from '../targets/console-type.js';
import { resolveTarget } from '../targets/index.js';
import { CONSOLE_TYPE_OPTION, PROVIDER_OPTIONS, mergeTargetOptions } from '../targets/option-groups.js';
import type { ConsoleTarget, TargetOptions } from '../targets/types.js';
import { parseListenAddress, type TargetFlags } from './flags.js';

const EMPTY_CONFIG: VconsoleConfig = { defaults: {}, aliases: {} };

/** Every option that fills TargetOptions: the providers' and --type. */
const TARGET_OPTION_DECLARATIONS = [...PROVIDER_OPTIONS, CONSOLE_TYPE_OPTION];

/**
 * Flags (a workspace's under them) win over the environment, which wins over the config file's
 * defaults; each option's declaration says which of them it has (src/targets/option-groups.ts).
 */
export function targetOptionsFrom(
  flags: TargetFlags,
  config: VconsoleConfig = EMPTY_CONFIG,
  env: NodeJS.ProcessEnv = process.env,
): TargetOptions {
  return mergeTargetOptions(TARGET_OPTION_DECLARATIONS, flags, { env, defaults: config.defaults });
}

/**
 * Resolves what the user typed: aliases first (`web#serial` is alias `web`'s serial console),
 * bare names to the configured default provider.
 */
export function resolveTargets(inputs: string[], options: TargetOptions, config: VconsoleConfig = EMPTY_CONFIG): ConsoleTarget[] {
  return inputs.map((input) => {
    const { text, consoleType } = splitConsoleType(input.trim());
    const expanded = expandAlias(text, config);
    return resolveTarget(consoleType ? `${expanded}#${consoleType}` : expanded, options, config.defaults.provider);
  });
}

/** `--listen` if given, else the config file's, else loopback. */
export function listenAddressFrom(flag: string | undefined, config: VconsoleConfig = EMPTY_CONFIG): string {
  if (flag !== undefined) return flag;
  return config.defaults.listen ? parseListenAddress(config.defaults.listen) : '127.0.0.1';
}
