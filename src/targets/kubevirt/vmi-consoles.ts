/**
 * The consoles a KubeVirt VMI offers: which console types there are, the websocket subresource
 * behind each, whether a VMI has them, and what virt-api would refuse before one is opened.
 */
import type { ConsoleType } from '../types.js';
import { autoOrder } from '../../console-kinds/index.js';
import type { VirtualMachineInstance } from './vms.js';
import type { ConsoleSubresource } from './api-paths.js';

/** What a VMI has: VNC and serial; no SPICE (virt-launcher gives QEMU no `-spice`). */
export type KubevirtConsoleType = Extract<ConsoleType, 'vnc' | 'serial'>;
export const KUBEVIRT_CONSOLE_TYPES: readonly KubevirtConsoleType[] = ['vnc', 'serial'];

/** The subresource behind each console type. */
export const CONSOLE_SUBRESOURCE: Record<KubevirtConsoleType, ConsoleSubresource> = { vnc: 'vnc', serial: 'console' };

/** What a VMI's console would refuse, as virt-api words it, with what to do; undefined when it can open. */
export function vmiConsoleProblem(vmi: VirtualMachineInstance, type: ConsoleType): { message: string; hint: string } | undefined {
  const devices = vmi.spec?.domain?.devices;
  const name = vmi.metadata?.name ?? 'VM';
  if (type === 'vnc' && devices?.autoattachGraphicsDevice === false) {
    return {
      message: 'No graphics devices are present.',
      hint: `the VM was defined without a display; use its serial console (${name}#serial)`,
    };
  }
  if (type === 'serial' && devices?.autoattachSerialConsole === false) {
    return {
      message: 'No serial consoles are present.',
      hint: `the VM was defined without a serial console (autoattachSerialConsole: false); use its VNC console (${name}#vnc)`,
    };
  }
  const phase = vmi.status?.phase ?? 'Unknown';
  if (phase === 'Failed') {
    // virtctl restart needs a VirtualMachine: a VMI created on its own can only be made again.
    const vm = vmi.metadata?.ownerReferences?.find((owner) => owner.kind === 'VirtualMachine')?.name;
    const hint = vm ? `restart it (virtctl restart ${vm})` : 'no VirtualMachine owns this VMI: delete and recreate it';
    // Only /console answers 409 "VMI is in failed status"; /vnc says "VMI is not running" (400).
    return { message: type === 'serial' ? 'VMI is in failed status' : 'VMI is not running (phase Failed)', hint };
  }
  if (phase !== 'Running') return { message: `VMI is not running (phase ${phase})`, hint: `start it (virtctl start ${name}) and retry` };
  return undefined;
}

/** Whether the VMI was given the device behind a console type (both are, unless switched off). */
function vmiHas(vmi: VirtualMachineInstance, type: KubevirtConsoleType): boolean {
  const devices = vmi.spec?.domain?.devices;
  return (type === 'vnc' ? devices?.autoattachGraphicsDevice : devices?.autoattachSerialConsole) !== false;
}

/** `auto`: the first console the VMI has in `auto`'s order (the screen, else the serial line); the last when it has none. */
export function autoConsoleType(vmi: VirtualMachineInstance): KubevirtConsoleType {
  const order = autoOrder(KUBEVIRT_CONSOLE_TYPES);
  return order.find((type) => vmiHas(vmi, type)) ?? order[order.length - 1];
}
