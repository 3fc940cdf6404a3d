import { UsageError, echoTarget } from '../errors.js';
import { demoProvider } from './demo/provider.js';
import { kubevirtProvider } from './kubevirt/provider.js';
import { libvirtProvider } from './libvirt/provider.js';
import { openstackProvider } from './openstack/provider.js';
import { pveProvider } from './pve/provider.js';
import { tcpProvider } from './tcp/provider.js';
import { unixProvider } from './unix/provider.js';
import { websocketProvider } from './websocket/provider.js';
import { oneOf, splitConsoleType } from './console-type.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions, TargetSpec } from './types.js';

/**
 * Every provider vconsole knows, in the order --help lists them. A new provider is one file
 * plus one line here; help, config validation, `list` and error hints follow from its fields.
 */
export const PROVIDERS: readonly ConsoleProvider[] = [
  kubevirtProvider,
  openstackProvider,
  pveProvider,
  libvirtProvider,
  websocketProvider,
  tcpProvider,
  unixProvider,
  demoProvider,
];

/** The provider for a bare `NAME` or `NS/NAME` when the config names none. */
export const DEFAULT_PROVIDER = 'kubevirt';

const SCHEME = /^([a-z][a-z0-9+.-]*):(.*)$/is;

/** Splits `scheme:rest`; a bare name has no scheme. */
export function splitTarget(raw: string): TargetSpec {
  const match = SCHEME.exec(raw);
  if (!match) return { raw, rest: raw };
  return { raw, scheme: match[1].toLowerCase(), rest: match[2] };
}

/** The provider with this id, if registered. */
export function providerById(id: string, providers: readonly ConsoleProvider[] = PROVIDERS): ConsoleProvider | undefined {
  return providers.find((p) => p.id === id);
}

/** Ids of the providers a bare name may mean: what `defaults.provider` accepts. */
export function bareNameProviderIds(providers: readonly ConsoleProvider[] = PROVIDERS): string[] {
  return providers.filter((p) => p.bareNames).map((p) => p.id);
}

/** Ids of the providers that can enumerate their VMs: what `list --provider` accepts. */
export function listingProviderIds(providers: readonly ConsoleProvider[] = PROVIDERS): string[] {
  return providers.filter((p) => p.list).map((p) => p.id);
}

export { oneOf } from './console-type.js';

/** The `Targets:` block of --help: every provider's syntax lines, aligned. */
export function targetHelp(providers: readonly ConsoleProvider[] = PROVIDERS): string {
  const lines = providers.flatMap((p) => p.syntax);
  const width = Math.max(...lines.map((l) => l.usage.length));
  return ['Targets:', ...lines.map((l) => `  ${l.usage.padEnd(width)}  ${l.console}`)].join('\n');
}

/**
 * Resolves what the user typed into a target. An unknown scheme, a malformed name or a console
 * type the provider does not offer is a UsageError that says what exists.
 */
export function resolveTarget(
  raw: string,
  options: TargetOptions,
  defaultProvider = DEFAULT_PROVIDER,
  providers: readonly ConsoleProvider[] = PROVIDERS,
): ConsoleTarget {
  const { text, consoleType: typed } = splitConsoleType(raw.trim());
  if (!text) throw new UsageError('empty target', 'name a VM, e.g. "vm-a", "ns/vm-a" or "demo:vm-a"');
  const spec = splitTarget(text);
  const scheme = spec.scheme;
  const provider = scheme ? providers.find((p) => p.schemes.includes(scheme)) : providerById(defaultProvider, providers);
  if (!provider) {
    if (!scheme)
      throw new UsageError(
        `no provider "${echoTarget(defaultProvider)}" for bare names`,
        `set defaults.provider to ${oneOf(bareNameProviderIds(providers))}`,
      );
    const known = providers.flatMap((p) => p.schemes.map((s) => `${s}:`));
    throw new UsageError(
      `unknown target scheme "${echoTarget(scheme)}:" in "${echoTarget(text)}"`,
      `use one of ${known.join(', ')} (see vconsole --help)`,
    );
  }
  const consoleType = typed ?? options.consoleType ?? 'auto';
  if (consoleType !== 'auto' && !provider.consoleTypes.includes(consoleType)) {
    const offered = provider.label
      ? `${provider.label} offers ${oneOf(provider.consoleTypes)} consoles`
      : `they offer ${oneOf(provider.consoleTypes)}`;
    throw new UsageError(`${provider.id} targets have no ${consoleType} console ("${echoTarget(text)}")`, offered);
  }
  const target = provider.resolve(spec, { ...options, consoleType });
  return typed && typed !== 'auto' ? namedWithType(target, typed) : target;
}

/**
 * `vm#serial`'s target named `…#serial`: its row, log lines and files say which of the VM's
 * consoles it is (`vm` and `vm#serial` side by side would read alike). Its identity stays the
 * provider's and the bare name's, so `vm#vnc` is still the same console as `vm` opening its VNC.
 */
function namedWithType(target: ConsoleTarget, type: string): ConsoleTarget {
  const name = accessorOf(target, 'name');
  const identity = accessorOf(target.facts, 'identity');
  const suffix = `#${type}`;
  Object.defineProperty(target, 'name', {
    get: () => `${String(name.get())}${suffix}`,
    set: name.set,
    configurable: true,
    enumerable: true,
  });
  Object.defineProperty(target.facts, 'identity', {
    get: () => (identity.get() as string | undefined) ?? `${target.provider}:${String(name.get())}`,
    set: identity.set,
    configurable: true,
    enumerable: true,
  });
  return target;
}

/** `key` of the target as the target itself reads and writes it: its accessors (a name the pre-flight completes), else its value. */
function accessorOf(target: object, key: 'name' | 'identity'): { get(): unknown; set(value: unknown): void } {
  for (let at: object | null = target; at; at = Object.getPrototypeOf(at) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(at, key);
    if (!descriptor) continue;
    if (!('value' in descriptor)) {
      const { get, set } = descriptor as { get?: (this: object) => unknown; set?: (this: object, value: unknown) => void };
      return { get: () => get?.call(target), set: (value) => set?.call(target, value) };
    }
    let value: unknown = descriptor.value;
    return { get: () => value, set: (next) => (value = next) };
  }
  let value: unknown;
  return { get: () => value, set: (next) => (value = next) };
}
