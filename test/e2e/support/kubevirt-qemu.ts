import type { KubevirtFixture } from '../../fixtures/kubevirt-api.js';
import type { ProcessLab } from './processes.js';
import { startQemuVm, type QemuVm } from './qemu.js';

/** Two QEMU VMs behind the KubeVirt fixture, as `default/vm-a` and `default/vm-b`. */
export interface KubevirtQemuCluster {
  vmA: QemuVm;
  vmB: QemuVm;
  fixture: KubevirtFixture;
  /** A kubeconfig whose context's namespace is `default`, for `--kubeconfig`. */
  kubeconfig: string;
  close(): Promise<void>;
}

/**
 * Starts the VMs and the fixture that serves their VNC sockets the way virt-handler does
 * (each `/vnc` websocket dials the VMI's QEMU `-vnc unix:` socket). The fixture is imported
 * on use, so a suite still loads (and reports) while the fixture is being changed.
 */
export async function startKubevirtQemuCluster(lab: ProcessLab, dir: string): Promise<KubevirtQemuCluster> {
  const [vmA, vmB] = await Promise.all([startQemuVm(lab, 'vm-a', dir), startQemuVm(lab, 'vm-b', dir)]);
  const { startKubevirtFixture } = await import('../../fixtures/kubevirt-api.js');
  const fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a', phase: 'Running', vncSocketPath: vmA.socketPath },
      { namespace: 'default', name: 'vm-b', phase: 'Running', vncSocketPath: vmB.socketPath },
    ],
  });
  return { vmA, vmB, fixture, kubeconfig: fixture.kubeconfigPath({ namespace: 'default' }), close: () => fixture.close() };
}
