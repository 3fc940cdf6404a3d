import type { VconsoleConfig } from '../../config/index.js';
import { DEFAULT_PROVIDER, PROVIDERS, splitTarget } from '../../targets/index.js';
import type { ConsoleProvider, ListScope, ListedVm, TargetOptions } from '../../targets/types.js';
import type { PickerVm, VmListingSource } from '../../tui/state/picker-model.js';

/**
 * A listed VM's target as `open` must be given it: a bare `ns/name` from a provider that is not
 * the one bare names mean here gets its provider's scheme (`kubevirt:ns/name`).
 */
export function qualifiedTarget(vm: ListedVm, bareNameProvider: string, providers: readonly ConsoleProvider[] = PROVIDERS): ListedVm {
  if (splitTarget(vm.target).scheme !== undefined || vm.provider === bareNameProvider) return vm;
  const scheme = providers.find((p) => p.id === vm.provider)?.schemes[0];
  return scheme ? { ...vm, target: `${scheme}:${vm.target}` } : vm;
}

/**
 * Every provider that can list, asked at once: one source each, for the picker to show as it
 * settles. A provider that fails (no kubeconfig, no cloud) rejects its own source only.
 */
export function listingSources(
  options: TargetOptions,
  config: VconsoleConfig,
  scope: ListScope = {},
  providers: readonly ConsoleProvider[] = PROVIDERS,
): VmListingSource[] {
  const bareNameProvider = config.defaults.provider ?? DEFAULT_PROVIDER;
  return providers.flatMap((provider) => {
    const list = provider.list?.bind(provider);
    if (!list) return [];
    const vms = (async () => (await list(options, scope)).map((vm) => pickerVm(qualifiedTarget(vm, bareNameProvider, providers))))();
    // The picker reports a failure when it draws; one that is never drawn is no crash.
    vms.catch(() => undefined);
    return [{ provider: provider.id, vms }];
  });
}

/** A listed VM as the picker shows it. */
function pickerVm(vm: ListedVm): PickerVm {
  return { provider: vm.provider, target: vm.target, state: vm.state, hasConsole: vm.console };
}
