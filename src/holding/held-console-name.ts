import { createHash } from 'node:crypto';
import type { UpstreamSource } from '../proxy/types.js';
import { consoleIdentity } from '../proxy/wrapped-source.js';

/**
 * The file name (without extension) of a held console's socket and record: the provider and the
 * kind in clear for a person looking at the directory, and a digest of the console's identity
 * (provider, the resolved VM identity, kind), which may hold a token and is never written out.
 * Two vconsoles of one user reach the same console exactly when they compute the same name.
 */
export function heldConsoleName(source: Pick<UpstreamSource, 'facts' | 'provider' | 'name'>): string {
  const digest = createHash('sha256').update(consoleIdentity(source)).digest('hex').slice(0, 32);
  return `${fileSafe(source.provider)}-${fileSafe(source.facts.consoleType ?? 'console')}-${digest}`;
}

/** Letters, digits and dashes only, short: it is only there to be read. */
function fileSafe(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9-]+/g, '-')
      .slice(0, 16)
      .toLowerCase() || 'x'
  );
}
