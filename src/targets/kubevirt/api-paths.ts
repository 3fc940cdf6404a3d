/** The KubeVirt API's paths vconsole asks for, names encoded. */
import type { ConsoleSubresource } from './vmi-consoles.js';

export function vmiPath(namespace: string, name: string): string {
  return `/apis/kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/virtualmachineinstances/${encodeURIComponent(name)}`;
}

/** The websocket subresource of a VMI: `vnc` or `console` (serial). */
export function subresourcePath(namespace: string, name: string, kind: ConsoleSubresource, preserveSession = false): string {
  const base = `/apis/subresources.kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/virtualmachineinstances/${encodeURIComponent(name)}/${kind}`;
  return kind === 'vnc' && preserveSession ? `${base}?preserveSession=true` : base;
}
