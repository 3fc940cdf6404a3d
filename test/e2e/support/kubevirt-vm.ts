import type { KubevirtFixture, SessionEvent } from '../../fixtures/kubevirt-api.js';

export interface OneVmCluster {
  fixture: KubevirtFixture;
  kubeconfig: string;
  /** Every console session the fixture ended, with why (`kicked` when a newer client took it). */
  closed: SessionEvent[];
}

/** The KubeVirt fixture serving one running VMI `default/vm-a` whose VNC is QEMU's socket. */
export async function kubevirtForVm(vncSocketPath: string): Promise<OneVmCluster> {
  const { startKubevirtFixture } = await import('../../fixtures/kubevirt-api.js');
  const fixture = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a', phase: 'Running', vncSocketPath }] });
  const closed: SessionEvent[] = [];
  fixture.sessions.on('close', (event: SessionEvent) => closed.push(event));
  return { fixture, kubeconfig: fixture.kubeconfigPath({ namespace: 'default' }), closed };
}
