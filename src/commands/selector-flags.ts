// The flags that pick VMs by what they are rather than by name (open, proxy, list): declared by
// each provider's option group (src/targets/*/options.ts); this registers them and names their type.
import type { Command } from 'commander';
import { valuesOf } from '../targets/option-group.js';
import { PROVIDER_OPTIONS, type ProviderFlags } from '../targets/option-groups.js';
import { addDeclaredOptions } from './flags.js';

/** `-l`, `-A`, `--os-filter`, `--os-tag` and `-n` (which comes with the target options), typed by their declarations. */
export type SelectionFlags = ProviderFlags;

/** Every provider's selector options (`-l`, `-A`, `--os-filter`, `--os-tag`); `--namespace` comes with the target options. */
export function addSelectorOptions(command: Command): Command {
  return addDeclaredOptions(command, PROVIDER_OPTIONS, 'selector');
}

/** Every `-n` given, in order, once each. */
export function namespacesOf(flags: { namespace?: string | string[] }): string[] {
  return valuesOf(flags.namespace);
}
