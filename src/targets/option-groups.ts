// The registry of option groups: a provider with flags adds one line here (its options.ts). Apart
// from src/targets/index.ts so building the command line loads no provider code, only these
// declarations. Everything else about options is derived: see the merge functions below and
// src/commands/flags.ts (commander), src/config (config and workspace keys).
import { tlsOptions } from './dial/options.js';
import { kubevirtOptions } from './kubevirt/options.js';
import { libvirtOptions } from './libvirt/options.js';
import { openstackOptions } from './openstack/options.js';
import { pveOptions } from './pve/options.js';
import { oneOf, parseConsoleType } from './console-type.js';
import {
  valueOption,
  type ConfigKeysOf,
  type WorkspaceKeysOf,
  type FlagSelection,
  type FlagsOf,
  type OptionDeclaration,
  type OptionGroup,
} from './option-group.js';
import { CONSOLE_TYPES, type ConsoleTypeChoice, type TargetOptions } from './types.js';

/** What `--type` and a workspace's `type` take: every kind the console-kinds registry knows, or auto. */
const TYPE_CHOICES: readonly string[] = [...CONSOLE_TYPES, 'auto'];

/** `-t/--type`: which console of each VM, for every provider (a target's own `#TYPE` wins). */
export const CONSOLE_TYPE_OPTION = valueOption('type', {
  flags: '-t, --type <type>',
  help: `console type: ${oneOf(TYPE_CHOICES)} (default: auto, the screen if the VM has one, else serial); TARGET#TYPE: one target's`,
  section: 'type',
  commands: ['proxy', 'open'],
  parse: (text) => parseConsoleType(text),
  into: 'consoleType',
  workspace: {
    key: 'type' as const,
    read: (v): ConsoleTypeChoice | undefined => (typeof v === 'string' && TYPE_CHOICES.includes(v) ? (v as ConsoleTypeChoice) : undefined),
    allowed: oneOf(TYPE_CHOICES),
  },
});

/** Every declaration that fills TargetOptions, as a type: what the file types below derive from. */
type TargetOptionDeclarations = [...(typeof OPTION_GROUPS)[number]['options'], typeof CONSOLE_TYPE_OPTION];

/** The `defaults.*` keys the option declarations give (kubeconfig, context, namespace, cloud, ...). */
export type DeclaredDefaults = ConfigKeysOf<TargetOptionDeclarations>;

/** The workspace keys the option declarations give (selector, namespaces, osTags, type, ...). */
export type DeclaredWorkspaceKeys = WorkspaceKeysOf<TargetOptionDeclarations>;

/** The flag `--type` gives. */
export type ConsoleTypeFlags = FlagsOf<readonly [typeof CONSOLE_TYPE_OPTION]>;

/** In the order --help lists their options. */
export const OPTION_GROUPS = [kubevirtOptions, openstackOptions, pveOptions, libvirtOptions, tlsOptions] as const;

/** Every provider option, in --help order within each section. */
export const PROVIDER_OPTIONS: readonly OptionDeclaration[] = (OPTION_GROUPS as readonly OptionGroup[]).flatMap((group) => group.options);

/** The selector options' shortest spellings, for hints: `-l/-A/--os-filter/--os-tag`. */
export function selectorFlagNames(): string[] {
  return PROVIDER_OPTIONS.filter((option) => option.section === 'selector').map((option) => option.flags.split(/[ ,]+/)[0]);
}

/** The selector options as one writes them, for hints: `-l SELECTOR, -A, --os-filter REGEX or --os-tag TAG`. */
export function selectorUsage(): string {
  return oneOf(
    PROVIDER_OPTIONS.filter((option) => option.section === 'selector').map((option) => {
      const value = /<([^>]+)>/.exec(option.flags)?.[1];
      return value ? `${option.flags.split(/[ ,]+/)[0]} ${value.toUpperCase()}` : option.flags.split(/[ ,]+/)[0];
    }),
  );
}

/** The flags the provider options give, typed by their declarations. */
export type ProviderFlags = FlagsOf<(typeof OPTION_GROUPS)[number]['options']>;

/**
 * The providers whose own flags were given (`-n`, `--cloud`, `--pve-url`, `--connect`, ...):
 * on the command line (or in a workspace under it) each names its provider, in registry order.
 */
export function flaggedProviders(flags: Readonly<Record<string, unknown>>, groups: readonly OptionGroup[] = OPTION_GROUPS): string[] {
  const given = (option: OptionDeclaration) => flags[option.key] !== undefined && flags[option.key] !== false;
  return [...new Set(groups.filter((group) => group.options.some(given)).map((group) => group.provider))];
}

/** What the merge reads besides the flags. */
interface OptionSources {
  env: NodeJS.ProcessEnv;
  /** The config file's `defaults`. */
  defaults: Readonly<Record<string, unknown>>;
}

/**
 * TargetOptions from flags (a workspace's already under them), then the environment, then the
 * config file's defaults, then each option's fallback: for each TargetOptions field, the first
 * of the flags filling it that was given wins; an env var the provider reads itself stops the
 * config default from applying.
 */
export function mergeTargetOptions(
  declarations: readonly OptionDeclaration[],
  flags: Readonly<Record<string, unknown>>,
  sources: OptionSources,
): Partial<TargetOptions> {
  const merged: Record<string, unknown> = {};
  const fields = [...new Set(declarations.flatMap((d) => (d.into ? [d.into] : [])))];
  for (const field of fields) {
    const filling = declarations.filter((d) => d.into === field);
    merged[field] = mergedValue(filling, flags, sources);
  }
  return merged;
}

function mergedValue(
  filling: readonly OptionDeclaration[],
  flags: Readonly<Record<string, unknown>>,
  { env, defaults }: OptionSources,
): unknown {
  for (const declaration of filling) {
    const given = flags[declaration.key];
    if (given !== undefined) return declaration.toOption ? declaration.toOption(given) : given;
  }
  const envSource = filling.find((d) => d.env)?.env;
  if (envSource?.use === 'value' && env[envSource.name] !== undefined) return env[envSource.name];
  if (envSource?.use === 'provider' && env[envSource.name]) return undefined;
  const configKey = filling.find((d) => d.config)?.config?.key;
  const configured = configKey === undefined ? undefined : defaults[configKey];
  if (configured !== undefined) return configured;
  return filling.find((d) => d.fallback !== undefined)?.fallback;
}

/** One provider's answer to "do these flags select VMs?", with the group that gave it. */
interface GroupSelection extends FlagSelection {
  readonly group: OptionGroup;
}

/**
 * The one answer to "do these flags select VMs?": each group's selection, in registry order.
 * With names given (`withNames`), only what picks VMs by what they are counts: -A or several
 * -n beside a name only say where the name is.
 */
export function flagSelections(
  flags: Readonly<Record<string, unknown>>,
  { withNames = false, groups = OPTION_GROUPS }: { withNames?: boolean; groups?: readonly OptionGroup[] } = {},
): GroupSelection[] {
  return groups.flatMap((group) => {
    const selection = group.selection?.(flags);
    if (!selection || (withNames && selection.reach !== 'matching')) return [];
    return [{ ...selection, group }];
  });
}
