// A node as KubeVirt sees one, made through the API of the loopback control plane (no kubelet, no
// virt-controller): virt-handler's Pod on the node with its Pod IP, and VMs and VMIs with the status
// virt-controller and virt-handler would give them.
//
// virt-api finds a VMI's virt-handler (client-go kubecli/handler.go ForNode): Pods in virt-api's own
// namespace (kubevirt outside a cluster: util.GetNamespace falls back to it without a service-account
// namespace file) with `kubevirt.io in (virt-handler)` and `spec.nodeName=<vmi.status.nodeName>`, exactly
// one, and dials wss://<status.podIP>:<--console-server-port>.
import type { ControlPlane } from './kube-control-plane.js';
import { KUBEVIRT_NAMESPACE } from './kubevirt-control-plane.js';

export const NODE_NAME = 'e2e-node';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

/** Creates virt-handler's Pod on `node` and sets its status as the kubelet would: Running, with `podIP`. */
export async function createVirtHandlerPod(plane: ControlPlane, podIP: string, node = NODE_NAME): Promise<void> {
  // The ServiceAccount admission plugin wants the namespace's default account, which no controller-manager made.
  await plane.admin.ok('POST', `/api/v1/namespaces/${KUBEVIRT_NAMESPACE}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace: KUBEVIRT_NAMESPACE },
  });
  const name = `virt-handler-${node}`;
  await plane.admin.ok('POST', `/api/v1/namespaces/${KUBEVIRT_NAMESPACE}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: KUBEVIRT_NAMESPACE, labels: { 'kubevirt.io': 'virt-handler' } },
    spec: {
      nodeName: node,
      automountServiceAccountToken: false,
      containers: [{ name: 'virt-handler', image: 'quay.io/kubevirt/virt-handler:v1.8.4' }],
    },
  });
  const status = {
    status: {
      phase: 'Running',
      hostIP: podIP,
      hostIPs: [{ ip: podIP }],
      podIP,
      podIPs: [{ ip: podIP }],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
  const patched = await plane.admin.call('PATCH', `/api/v1/namespaces/${KUBEVIRT_NAMESPACE}/pods/${name}/status`, status, MERGE_PATCH);
  if (patched.status !== 200) throw new Error(`setting virt-handler's Pod IP answered ${patched.status}: ${patched.body.slice(0, 500)}`);
}

export interface VmSpec {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  /** Whether a VMI runs (the VM's runStrategy Always) or not (Halted, no VMI). */
  running: boolean;
  node?: string;
}

interface Created {
  metadata: { uid: string };
}

/** A VirtualMachine and, when it runs, its VMI as virt-controller and virt-handler leave them. */
export async function createVm(plane: ControlPlane, vm: VmSpec): Promise<void> {
  const template = {
    metadata: { labels: vm.labels ?? {} },
    spec: { domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } },
  };
  const vmsPath = `/apis/kubevirt.io/v1/namespaces/${vm.namespace}/virtualmachines`;
  const created = await plane.admin.ok<Created>('POST', vmsPath, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: vm.name, namespace: vm.namespace, labels: vm.labels ?? {} },
    spec: { runStrategy: vm.running ? 'Always' : 'Halted', template },
  });
  const vmStatus = vm.running
    ? { created: true, ready: true, printableStatus: 'Running', runStrategy: 'Always' }
    : { printableStatus: 'Stopped', runStrategy: 'Halted' };
  const patched = await plane.admin.call('PATCH', `${vmsPath}/${vm.name}/status`, { status: vmStatus }, MERGE_PATCH);
  if (patched.status !== 200) throw new Error(`setting the VM's status answered ${patched.status}: ${patched.body.slice(0, 500)}`);
  if (!vm.running) return;
  const owner = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: vm.name, uid: created.metadata.uid, controller: true };
  // The VMI CRD has no status subresource (KubeVirt's generator gives only VMs one): its status is written with it.
  await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${vm.namespace}/virtualmachineinstances`, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name: vm.name,
      namespace: vm.namespace,
      labels: { ...vm.labels, 'kubevirt.io/nodeName': vm.node ?? NODE_NAME },
      ownerReferences: [owner],
    },
    spec: template.spec,
    status: {
      phase: 'Running',
      nodeName: vm.node ?? NODE_NAME,
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  });
}

export interface BareVmi {
  namespace: string;
  name: string;
  phase: string;
  /** false: spec.domain.devices.autoattachGraphicsDevice=false. */
  graphics?: boolean;
  /** false: spec.domain.devices.autoattachSerialConsole=false. */
  serialConsole?: boolean;
}

/** A VMI created on its own (no VM behind it) in `phase`, on the node when it is Scheduled or Running. */
export async function createVmi(plane: ControlPlane, vmi: BareVmi): Promise<void> {
  const devices: Record<string, boolean> = {};
  if (vmi.graphics === false) devices.autoattachGraphicsDevice = false;
  if (vmi.serialConsole === false) devices.autoattachSerialConsole = false;
  const onNode = vmi.phase === 'Running' || vmi.phase === 'Scheduled';
  await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${vmi.namespace}/virtualmachineinstances`, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: vmi.name, namespace: vmi.namespace },
    spec: { domain: { devices, resources: { requests: { memory: '64Mi' } } } },
    status: { phase: vmi.phase, ...(onNode ? { nodeName: NODE_NAME } : {}) },
  });
}
