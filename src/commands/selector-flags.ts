import { type ProviderFlags, valuesOf } from '../targets/index.js';

/** `-l`, `-A`, `--os-filter`, `--os-tag` and `-n` (which comes with the target options), typed by their declarations. */
export type SelectionFlags = ProviderFlags;

/** Every `-n` given, in order, once each. */
export function namespacesOf(flags: { namespace?: string | string[] }): string[] {
  return valuesOf(flags.namespace);
}
