// The flags that pick VMs by what they are rather than by name (open, proxy, list): declared by
// each provider's option group (src/targets/*/options.ts); this names their type.
import { valuesOf } from '../targets/option-group.js';
import type { ProviderFlags } from '../targets/option-groups.js';

/** `-l`, `-A`, `--os-filter`, `--os-tag` and `-n` (which comes with the target options), typed by their declarations. */
export type SelectionFlags = ProviderFlags;

/** Every `-n` given, in order, once each. */
export function namespacesOf(flags: { namespace?: string | string[] }): string[] {
  return valuesOf(flags.namespace);
}
