/**
 * The providers as the commands see them before one loads: what a target and a provider are, the
 * flags the providers declare (for `--help`, the config file and the flag types), console types and
 * what a target may offer. Every command loads this for its `--help`, so it loads no provider: the
 * registry of providers (PROVIDERS, resolveTarget) is src/targets/registry.ts, which loads them all
 * and which only a command that resolves or lists targets imports. src/commands import src/targets
 * only through these two (docs/ARCHITECTURE.md, "Walls").
 */
export { CAPABILITY_NAMES, POWER_ACTIONS, offeredCapabilities } from './capabilities.js';
export type { CapabilityName, PowerAction } from './capabilities.js';
export { oneOf, splitConsoleType } from './console-type.js';
export { switchOption, valueOption, valuesOf } from './option-group.js';
export type { FlagSelection, FlagsOf, OptionDeclaration, OptionSection } from './option-group.js';
export {
  CONSOLE_TYPE_OPTION,
  OPTION_GROUPS,
  PROVIDER_OPTIONS,
  flagSelections,
  flaggedProviders,
  mergeTargetOptions,
  selectorUsage,
} from './option-groups.js';
export type { ConsoleTypeFlags, ProviderFlags } from './option-groups.js';
export type {
  ConsoleProvider,
  ConsoleTarget,
  ListFollowContext,
  ListScope,
  ListedChange,
  ListedVm,
  TargetOptions,
  VmPhase,
  VmState,
} from './types.js';
