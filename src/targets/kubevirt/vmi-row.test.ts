import { describe, expect, it } from 'vitest';
import { vmiRow } from './listing.js';
import type { VirtualMachineInstance } from './vms.js';

// VMIs shaped as KubeVirt v1.8.4 writes them: virt-handler adds the Paused condition
// (reason PausedByUser) on `virtctl pause`, and the phase stays Running.
const RUNNING: VirtualMachineInstance = {
  metadata: { name: 'vm-a', namespace: 'default', ownerReferences: [{ kind: 'VirtualMachine', name: 'vm-a' }] },
  spec: { domain: { devices: {} } },
  status: {
    phase: 'Running',
    nodeName: 'node-1',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'LiveMigratable', status: 'True' },
    ],
  },
};

function withConditions(conditions: { type: string; status: string; reason?: string; message?: string }[]): VirtualMachineInstance {
  return { ...RUNNING, status: { ...RUNNING.status, conditions: [...(RUNNING.status?.conditions ?? []), ...conditions] } };
}

describe('the state list shows for a VMI', () => {
  it('a paused VMI (Paused condition True, phase Running) is Paused', () => {
    const paused = withConditions([{ type: 'Paused', status: 'True', reason: 'PausedByUser', message: 'VMI was paused by user' }]);
    expect(vmiRow(paused)).toMatchObject({ target: 'default/vm-a', state: 'Paused' });
  });

  it('a running VMI, or one whose Paused condition is not True, is Running; other phases are shown as they are', () => {
    expect(vmiRow(RUNNING).state).toBe('Running');
    expect(vmiRow(withConditions([{ type: 'Paused', status: 'False' }])).state).toBe('Running');
    expect(vmiRow({ ...RUNNING, status: { phase: 'Scheduling' } }).state).toBe('Scheduling');
  });
});
