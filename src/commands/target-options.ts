import { expandAlias, type VconsoleConfig } from '../config/config.js';
import { splitConsoleType } from '../targets/console-type.js';
import { resolveTarget } from '../targets/index.js';
import type { ConsoleTarget, TargetOptions } from '../targets/types.js';
import { parseListenAddress, type TargetFlags } from './flags.js';

const EMPTY_CONFIG: VconsoleConfig = { defaults: {}, aliases: {} };

/** Flags win over the environment, which wins over the config file's defaults. */
export function targetOptionsFrom(flags: TargetFlags, config: VconsoleConfig = EMPTY_CONFIG): TargetOptions {
  const defaults = config.defaults;
  return {
    kubeconfig: flags.kubeconfig ?? (process.env.KUBECONFIG ? undefined : defaults.kubeconfig),
    context: flags.context ?? defaults.context,
    // With several -n (a search), bare names take the first.
    namespace: [flags.namespace ?? []].flat()[0] ?? defaults.namespace,
    preserveSession: flags.preserveSession ?? false,
    cloud: flags.cloud ?? flags.osCloud ?? process.env.OS_CLOUD ?? defaults.cloud,
    region: flags.osRegion,
    interface: flags.osInterface,
    insecure: flags.insecure ?? false,
    ca: flags.ca,
    consoleType: flags.type,
  };
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
