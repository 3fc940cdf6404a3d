/** The KubeVirt API's paths vconsole asks for, names encoded. */
/** What vconsole reads of kubevirt.io: VMIs, and the VMs behind them. */
export type KubevirtResource = 'virtualmachineinstances' | 'virtualmachines';

/** A VMI's websocket subresource: `vnc` or `console` (serial). */
export type ConsoleSubresource = 'vnc' | 'console';

/** `API[/namespaces/NS]/RESOURCE[/NAME]`: without a namespace, all namespaces; without a name, the list. */
function apiPath(api: string, resource: string, namespace?: string, name?: string): string {
  const where = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const which = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${api}${where}/${resource}${which}`;
}

/** A kubevirt.io resource: one by name, the list of a namespace, or of all namespaces. */
export function kubevirtPath(resource: KubevirtResource, namespace?: string, name?: string): string {
  return apiPath('/apis/kubevirt.io/v1', resource, namespace, name);
}

/** The websocket subresource of a VMI: `vnc` or `console` (serial). */
export function subresourcePath(namespace: string, name: string, kind: ConsoleSubresource, preserveSession = false): string {
  const base = `${apiPath('/apis/subresources.kubevirt.io/v1', 'virtualmachineinstances', namespace, name)}/${kind}`;
  return kind === 'vnc' && preserveSession ? `${base}?preserveSession=true` : base;
}
