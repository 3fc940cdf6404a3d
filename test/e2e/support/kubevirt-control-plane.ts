// KubeVirt on the loopback control plane, as far as it goes without a node: its CRDs as KubeVirt's own
// generator makes them, the KubeVirt CR, and the real virt-api run outside the cluster with its certificates,
// reached through kube-apiserver's aggregation layer (APIService v1.subresources.kubevirt.io).
//
// virt-api is registered as in a cluster, except that its Service is of type ExternalName pointing at localhost:
// kube-apiserver then dials localhost (k8s.io/apiserver's ResolveCluster takes an ExternalName's host as is)
// while it still verifies virt-api's certificate for virt-api.kubevirt.svc. Endpoints cannot say 127.0.0.1 (the
// API refuses loopback endpoint addresses), and a ClusterIP would be dialled at an address that is not here.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { makeLeaf, type CertPair } from './kube-certs.js';
import type { ControlPlane } from './kube-control-plane.js';
import { writeKubeconfig } from './kube-kubeconfig.js';
import type { KubePrograms } from './kube-programs.js';
import { freeLoopbackPort } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';

export const KUBEVIRT_NAMESPACE = 'kubevirt';
const VIRT_API_SERVICE = 'virt-api';
const SUBRESOURCES_GROUP = 'subresources.kubevirt.io';
const READY_TIMEOUT_MS = 180_000;

interface Crd {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Applies the CRDs virt-operator would install (printed by scripts/kube/kubevirt/cmd/kubevirt-crds) and waits until each is Established. */
export async function installKubeVirtCrds(plane: ControlPlane, programs: KubePrograms): Promise<string[]> {
  const printed = await runProgram(programs.kubevirtCrds, [], { timeoutMs: 60_000 });
  if (printed.code !== 0) throw new Error(`kubevirt-crds failed (exit ${printed.code}): ${printed.stderr.trim()}`);
  const { items } = JSON.parse(printed.stdout) as { items: Crd[] };
  for (const crd of items) await plane.admin.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  for (const crd of items) {
    await pollFor(
      async () => {
        const current = await plane.admin.ok<Crd>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
        return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      { what: `the CRD ${crd.metadata.name} to be Established`, timeoutMs: READY_TIMEOUT_MS },
    );
  }
  return items.map((crd) => crd.metadata.name);
}

export interface VirtApi {
  process: RunningProcess;
  port: number;
  /** virt-api's client certificate towards virt-handler, and the CA virt-api trusts virt-handler's serving certificate by. */
  handlerClient: CertPair;
}

async function createKubeVirtObjects(plane: ControlPlane): Promise<void> {
  await plane.admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KUBEVIRT_NAMESPACE } });
  await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${KUBEVIRT_NAMESPACE}/kubevirts`, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'KubeVirt',
    metadata: { name: 'kubevirt', namespace: KUBEVIRT_NAMESPACE },
    spec: {},
  });
  // What virt-operator keeps: the CA that virt-handler's console server certificate is signed by.
  await plane.admin.ok('POST', `/api/v1/namespaces/${KUBEVIRT_NAMESPACE}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kubevirt-ca', namespace: KUBEVIRT_NAMESPACE },
    data: { 'ca-bundle': readFileSync(plane.ca.cert, 'utf8') },
  });
}

async function registerAggregatedApi(plane: ControlPlane, port: number): Promise<void> {
  await plane.admin.ok('POST', `/api/v1/namespaces/${KUBEVIRT_NAMESPACE}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: VIRT_API_SERVICE, namespace: KUBEVIRT_NAMESPACE },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] },
  });
  await plane.admin.ok('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `v1.${SUBRESOURCES_GROUP}` },
    spec: {
      group: SUBRESOURCES_GROUP,
      version: 'v1',
      service: { namespace: KUBEVIRT_NAMESPACE, name: VIRT_API_SERVICE, port },
      caBundle: readFileSync(plane.ca.cert).toString('base64'),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
}

/**
 * Starts virt-api on loopback, registers it with the aggregation layer and waits until requests reach it.
 * `consoleServerPort` is where virt-api dials virt-handler's console server on a node's virt-handler Pod IP
 * (--console-server-port, 8186 by default).
 */
export async function startVirtApi(
  lab: ProcessLab,
  plane: ControlPlane,
  programs: KubePrograms,
  consoleServerPort?: number,
): Promise<VirtApi> {
  await createKubeVirtObjects(plane);
  const serving = await makeLeaf(plane.dir, 'virt-api', plane.ca, {
    commonName: VIRT_API_SERVICE,
    usage: 'server',
    dnsNames: [`${VIRT_API_SERVICE}.${KUBEVIRT_NAMESPACE}.svc`, 'localhost'],
    ips: ['127.0.0.1'],
  });
  const handlerClient = await makeLeaf(plane.dir, 'virt-api-handler-client', plane.ca, {
    commonName: 'kubevirt.io:system:client:virt-handler',
    usage: 'client',
  });
  const kubeconfig = await writeKubeconfig(plane, 'admin', KUBEVIRT_NAMESPACE);
  const port = await freeLoopbackPort();
  const virtApi = lab.start(
    'virt-api',
    programs.virtApi,
    [
      `--kubeconfig=${kubeconfig}`,
      '--listen=127.0.0.1',
      `--port=${port}`,
      `--tls-cert-file=${serving.cert}`,
      `--tls-key-file=${serving.key}`,
      `--handler-cert-file=${handlerClient.cert}`,
      `--handler-key-file=${handlerClient.key}`,
      ...(consoleServerPort === undefined ? [] : [`--console-server-port=${consoleServerPort}`]),
    ],
    { cwd: plane.dir },
  );
  await registerAggregatedApi(plane, port);
  await pollFor(
    async () => {
      if (virtApi.hasExited()) throw new GiveUp(`virt-api exited:\n${virtApi.describe()}`);
      return (await plane.admin.call('GET', `/apis/${SUBRESOURCES_GROUP}/v1/healthz`)).status === 200 ? true : undefined;
    },
    {
      what: 'virt-api to answer through the aggregation layer',
      timeoutMs: READY_TIMEOUT_MS,
      intervalMs: 250,
      detail: () => virtApi.describe(),
    },
  );
  await writeFile(join(plane.dir, 'virt-api.port'), String(port));
  return { process: virtApi, port, handlerClient };
}
