// What the TUI's `S` writes for a session's console: the target, pinned so it opens again under
// any defaults. It looks through the data path's wrappers, so it lives with the commands, not in
// src/config (which must not import the data path).
import type { UpstreamSource } from '../proxy/types.js';
import { sourceChain } from '../proxy/wrapped-source.js';

/**
 * What to save for an open session so `open @NAME` opens the same console under any defaults:
 * the target as typed when it named its scheme, else pinned to its provider (a KubeVirt VM
 * with the namespace its pre-flight found). Shared consoles are looked through to their target.
 */
export function targetToSave(source: UpstreamSource): string {
  const chain = [...sourceChain(source)] as (UpstreamSource & { input?: unknown })[];
  const target = chain.find((s) => typeof s.input === 'string') ?? chain[chain.length - 1];
  const input = typeof target.input === 'string' ? target.input : target.name;
  if (/^[a-z][a-z0-9+.-]*:/i.test(input)) return input;
  if (target.provider === 'kubevirt' && target.name.includes('/')) return `kubevirt:${target.name}`;
  return `${target.provider}:${input}`;
}
