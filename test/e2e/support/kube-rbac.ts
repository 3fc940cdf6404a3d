// RBAC as a cluster admin grants console users (docs/COMMANDS.md, "The RBAC a user needs"), made through the API.
import type { ControlPlane } from './kube-control-plane.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** Reading VMIs and VMs: what `list` and the pre-flight need. */
export const READ_VMS: Rule = {
  apiGroups: ['kubevirt.io'],
  resources: ['virtualmachineinstances', 'virtualmachines'],
  verbs: ['get', 'list', 'watch'],
};

/** Opening consoles: `get` on the websocket subresources named. */
export function openConsoles(...subresources: ('vnc' | 'console')[]): Rule {
  return {
    apiGroups: ['subresources.kubevirt.io'],
    resources: subresources.map((s) => `virtualmachineinstances/${s}`),
    verbs: ['get'],
  };
}

const userSubject = (user: string) => [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }];

/** A ClusterRole and its ClusterRoleBinding to one user. */
export async function grantClusterWide(plane: ControlPlane, name: string, user: string, rules: Rule[]): Promise<void> {
  await plane.admin.ok('POST', `${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules,
  });
  await plane.admin.ok('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: userSubject(user),
  });
}

/** A Role in `namespace` and its RoleBinding to one user. */
export async function grantInNamespace(plane: ControlPlane, namespace: string, name: string, user: string, rules: Rule[]): Promise<void> {
  const base = `${RBAC}/namespaces/${namespace}`;
  await plane.admin.ok('POST', `${base}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace },
    rules,
  });
  await plane.admin.ok('POST', `${base}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: userSubject(user),
  });
}
