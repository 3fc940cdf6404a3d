import { UsageError, safeTargetText } from '../errors.js';
import { demoProvider } from './demo.js';
import { kubevirtProvider } from './kubevirt.js';
import { openstackProvider } from './openstack.js';
import { tcpProvider } from './tcp.js';
import { unixProvider } from './unix.js';
import { websocketProvider } from './websocket.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions, TargetSpec } from './types.js';

/** Every provider vconsole knows. A new provider is one file plus one line here. */
const PROVIDERS: readonly ConsoleProvider[] = [
  kubevirtProvider,
  demoProvider,
  openstackProvider,
  websocketProvider,
  tcpProvider,
  unixProvider,
];

/** The provider for a bare `NAME` or `NS/NAME`. */
const DEFAULT_PROVIDER = 'kubevirt';

const SCHEME = /^([a-z][a-z0-9+.-]*):(.*)$/is;

/** Splits `scheme:rest`; a bare name has no scheme. */
export function splitTarget(raw: string): TargetSpec {
  const match = SCHEME.exec(raw);
  if (!match) return { raw, rest: raw };
  return { raw, scheme: match[1].toLowerCase(), rest: match[2] };
}

function findProvider(scheme: string): ConsoleProvider | undefined {
  return PROVIDERS.find((p) => p.schemes.includes(scheme));
}

/**
 * Resolves what the user typed into a target. An unknown scheme or malformed name is a
 * UsageError that says which schemes exist.
 */
export function resolveTarget(raw: string, options: TargetOptions, defaultProvider = DEFAULT_PROVIDER): ConsoleTarget {
  const text = raw.trim();
  if (!text) throw new UsageError('empty target', 'name a VM, e.g. "vm-a", "ns/vm-a" or "demo:vm-a"');
  const spec = splitTarget(text);
  const provider = spec.scheme ? findProvider(spec.scheme) : findProvider(defaultProvider);
  if (!provider) {
    const known = PROVIDERS.flatMap((p) => p.schemes.map((s) => `${s}:`)).join(', ');
    throw new UsageError(`unknown target scheme "${spec.scheme}:" in "${safeTargetText(text)}"`, `use one of ${known}`);
  }
  return provider.resolve(spec, options);
}
