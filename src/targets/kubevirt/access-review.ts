// The one question vconsole asks RBAC before acting on a VM: may I VERB this subresource?
import { requestKubeJson, type KubeAccess } from './kubernetes-api.js';
import { ImpersonationRefusedError } from './impersonation.js';

/** What a SelfSubjectAccessReview asks about: a subresource of KubeVirt's API group, of one object or of every one in a namespace. */
interface SubresourceAccess {
  namespace: string;
  verb: 'get' | 'update';
  resource: 'virtualmachines' | 'virtualmachineinstances';
  subresource: string;
  name?: string;
}

/**
 * Whether the cluster allows it; undefined when it did not answer (an old cluster, a proxy): nothing is held against the user then.
 * With impersonation the review carries the headers too, so kube-apiserver answers for the impersonated user; its refusal to
 * impersonate at all is said as such (rejects).
 */
export async function reviewAccess(access: KubeAccess, asked: SubresourceAccess, signal?: AbortSignal): Promise<boolean | undefined> {
  const review = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { group: 'subresources.kubevirt.io', ...asked } },
  };
  try {
    const answer = await requestKubeJson<{ status?: { allowed?: boolean } }>(
      access,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      review,
      signal,
    );
    return answer.status?.allowed;
  } catch (err) {
    if (err instanceof ImpersonationRefusedError) throw err;
    return undefined;
  }
}
