// The KubeVirt provider's ground under the real programs: etcd and kube-apiserver on loopback (RBAC, the
// aggregation layer, service-account tokens, token / client-certificate / exec-plugin users), KubeVirt's CRDs from
// KubeVirt's own generator, and the real virt-api behind the aggregation layer. Built by scripts/kube/build.sh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, USERS, type ControlPlane } from './support/kube-control-plane.js';
import { kubeClient } from './support/kube-http.js';
import { writeKubeconfig, type KubeUserKind } from './support/kube-kubeconfig.js';
import { requireKubePrograms } from './support/kube-programs.js';
import { installKubeVirtCrds, startVirtApi } from './support/kubevirt-control-plane.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

const tools = requireTools(['openssl']);
const kube = requireKubePrograms(['etcd', 'kubeApiserver', 'kubevirtCrds', 'virtApi']);
const gate = { skip: tools.skip ?? kube.skip };
const NAMESPACE = 'vconsole-e2e';

const lab = new ProcessLab();
let plane: ControlPlane;
let crds: string[];

interface SelfSubjectReview {
  status: { userInfo: { username: string; groups?: string[] } };
}

const whoAmI = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

/** Lets the suite's group read VMs and VMIs, as a cluster admin would grant a console user. */
async function grantReaders(): Promise<void> {
  await plane.admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'vconsole-e2e-reader' },
    rules: [{ apiGroups: ['kubevirt.io'], resources: ['virtualmachineinstances', 'virtualmachines'], verbs: ['get', 'list', 'watch'] }],
  });
  await plane.admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'vconsole-e2e-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'vconsole-e2e-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'vconsole-e2e' }],
  });
}

/** A VMI as virt-controller leaves a running one: scheduled on a node, phase Running. */
function runningVmi(name: string): unknown {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: NAMESPACE, labels: { app: 'web' } },
    spec: { domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } },
    status: { phase: 'Running', nodeName: 'e2e-node' },
  };
}

async function vconsoleList(kind: KubeUserKind): Promise<{ target: string; state?: string }[]> {
  const kubeconfig = await writeKubeconfig(plane, kind, NAMESPACE);
  const result = await runProgram(
    process.execPath,
    [VCONSOLE_BIN, 'list', '--provider', 'kubevirt', '--kubeconfig', kubeconfig, '--json'],
    {
      timeoutMs: 60_000,
      env: vconsoleEnv({ HOME: plane.dir }),
    },
  );
  expect(result.stderr, `vconsole list as the ${kind} user`).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { target: string; state?: string }[];
}

describe.skipIf(gate.skip)(gatedTitle('a real kube-apiserver, etcd and virt-api on loopback', gate), () => {
  beforeAll(async () => {
    plane = await startControlPlane(lab, kube.programs);
    await plane.admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    crds = await installKubeVirtCrds(plane, kube.programs);
    await grantReaders();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(() => lab.cleanup(), E2E_SETUP_TIMEOUT_MS);

  it(
    'authenticates the client-certificate user, the static token user and a service account token',
    async () => {
      const asCert = kubeClient(plane.server, plane.ca.cert, plane.userCert);
      const asToken = kubeClient(plane.server, plane.ca.cert, { token: plane.tokens.token });
      const cert = await asCert.ok<SelfSubjectReview>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', whoAmI);
      const token = await asToken.ok<SelfSubjectReview>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', whoAmI);
      expect(cert.status.userInfo).toMatchObject({ username: USERS.cert.name, groups: expect.arrayContaining(['vconsole-e2e']) });
      expect(token.status.userInfo).toMatchObject({ username: USERS.token.name, groups: expect.arrayContaining(['vconsole-e2e']) });

      await plane.admin.ok('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'console-user' },
      });
      const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } };
      const issued = await plane.admin.ok<{ status: { token: string } }>(
        'POST',
        `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/console-user/token`,
        request,
      );
      const asAccount = kubeClient(plane.server, plane.ca.cert, { token: issued.status.token });
      const account = await asAccount.ok<SelfSubjectReview>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', whoAmI);
      expect(account.status.userInfo.username).toBe(`system:serviceaccount:${NAMESPACE}:console-user`);

      const stranger = kubeClient(plane.server, plane.ca.cert, { token: 'not-a-token-the-api-knows' });
      expect((await stranger.call('GET', '/api')).status).toBe(401);
      // RBAC holds: the token user may not list Secrets.
      expect((await asToken.call('GET', `/api/v1/namespaces/${NAMESPACE}/secrets`)).status).toBe(403);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "has KubeVirt's generated CRDs and lists a VMI made through the API with each kind of kubeconfig user",
    async () => {
      expect(crds).toEqual(
        expect.arrayContaining(['virtualmachineinstances.kubevirt.io', 'virtualmachines.kubevirt.io', 'kubevirts.kubevirt.io']),
      );
      const resources = await plane.admin.ok<{ resources: { name: string }[] }>('GET', '/apis/kubevirt.io/v1');
      expect(resources.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['virtualmachineinstances', 'virtualmachines']));

      await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances`, runningVmi('vm-a'));
      for (const kind of ['cert', 'token', 'exec'] as const) {
        const listed = await vconsoleList(kind);
        expect(
          listed.map((vm) => vm.target),
          `as the ${kind} user`,
        ).toEqual([`${NAMESPACE}/vm-a`]);
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'runs virt-api outside the cluster behind the aggregation layer, which authorizes its subresources',
    async () => {
      await startVirtApi(lab, plane, kube.programs);
      const discovery = await plane.admin.ok<{ groups: { name: string }[] }>('GET', '/apis');
      expect(discovery.groups.map((g) => g.name)).toContain('subresources.kubevirt.io');
      const version = await plane.admin.call('GET', '/apis/subresources.kubevirt.io/v1/version');
      expect(version.status, version.body).toBe(200);
      expect(version.json<{ gitVersion?: string }>().gitVersion).toMatch(/^v\d/);

      await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances`, runningVmi('no-handler'));
      const vnc = `/apis/subresources.kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/no-handler/vnc`;
      // RBAC in kube-apiserver refuses a user without virtualmachineinstances/vnc before virt-api hears of it.
      const refused = await kubeClient(plane.server, plane.ca.cert, plane.userCert).call('GET', vnc);
      expect(refused.status).toBe(403);
      expect(refused.json<{ message: string }>().message).toContain(
        'cannot get resource "virtualmachineinstances/vnc" in API group "subresources.kubevirt.io"',
      );
      // virt-api's console routes produce no JSON: a request that accepts only JSON is refused (go-restful's 406)
      // before the route runs. One that accepts anything learns that the VMI's node runs no virt-handler.
      const jsonOnly = await plane.admin.call('GET', vnc, undefined, { accept: 'application/json' });
      expect(jsonOnly.status, jsonOnly.body).toBe(406);
      const noHandler = await plane.admin.call('GET', vnc, undefined, { accept: '*/*' });
      expect(noHandler.status, noHandler.body).toBe(400);
      expect(noHandler.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'No virt-handler on node e2e-node found' });
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
