// Impersonation as kubectl does it (--as, --as-group, a kubeconfig user's `as` and `as-groups`): the
// Impersonate-User header, and one Impersonate-Group header per group, on every request to the API server,
// websocket upgrades included. kube-apiserver checks that the authenticated user may "impersonate" them,
// then handles the request as the impersonated user: a SelfSubjectAccessReview carrying the headers
// answers for that user. @kubernetes/client-node 1.4.0 reads a user's `as` but not its `as-groups`:
// vconsole reads both itself and sets the headers (replacing client-node's).
import type http from 'node:http';
import { UsageError, VconsoleError } from '../../errors.js';
import { isEntry, kubeconfigUser } from './kubeconfig-user.js';

/** Who the API server is asked to act as. */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

/** What a kubeconfig user says about impersonation (either may be missing). */
export interface KubeconfigImpersonation {
  user?: string;
  groups?: readonly string[];
}

/** A kubeconfig user body's `as` and `as-groups`, as kubectl reads them. */
export function impersonationOfEntry(user: unknown): KubeconfigImpersonation {
  if (!isEntry(user)) return {};
  const as = typeof user.as === 'string' && user.as ? user.as : undefined;
  const groups = Array.isArray(user['as-groups']) ? user['as-groups'].filter((g): g is string => typeof g === 'string' && g !== '') : [];
  return { user: as, groups: groups.length ? groups : undefined };
}

/** The `as` and `as-groups` of the user called `userName` in the first of `files` that defines that user (kubectl's merge). */
export async function impersonationOfUser(files: readonly string[], userName: string): Promise<KubeconfigImpersonation> {
  const found = await kubeconfigUser(files, userName);
  return found ? impersonationOfEntry(found.user) : {};
}

/**
 * The impersonation to ask for: the flags' user and groups each replace the kubeconfig's, as kubectl
 * merges its overrides field by field. Groups without a user is what kube-apiserver refuses
 * ("requested ... without impersonating a user"): said before anything is asked.
 */
export function chooseImpersonation(
  flags: { user?: string; groups?: readonly string[] },
  kubeconfig: KubeconfigImpersonation,
): Impersonation | undefined {
  const user = flags.user ?? kubeconfig.user;
  const groups = flags.groups?.length ? flags.groups : (kubeconfig.groups ?? []);
  if (user) return { user, groups };
  if (flags.groups?.length) throw new UsageError('--as-group needs a user to impersonate', 'add --as USER');
  if (groups.length) {
    throw new VconsoleError('the kubeconfig user has as-groups but no as (a user to impersonate)', {
      hint: 'add `as: USER` to the kubeconfig user, or pass --as USER',
    });
  }
  return undefined;
}

/** Sets the impersonation headers on `headers`, replacing any client-node set. */
export function applyImpersonation(headers: http.OutgoingHttpHeaders, impersonation: Impersonation | undefined): void {
  if (!impersonation) return;
  for (const name of Object.keys(headers)) if (/^impersonate-/i.test(name)) delete headers[name];
  headers['Impersonate-User'] = impersonation.user;
  // One header line per group: Go reads them as a list, a comma-joined line would be one group.
  if (impersonation.groups.length) headers['Impersonate-Group'] = [...impersonation.groups];
}

/** kube-apiserver's refusal to let the user impersonate. */
export class ImpersonationRefusedError extends VconsoleError {}

/**
 * The authorizer's words for a refused impersonation: legacy impersonation (`cannot impersonate resource "users"`,
 * or groups, serviceaccounts, uids, userextras), and Kubernetes 1.36's constrained impersonation (ConstrainedImpersonation,
 * beta and on by default), which reports its first mode's refusal on the request itself:
 * `cannot impersonate-on:user-info:get resource "virtualmachineinstances"`.
 */
const CANNOT_IMPERSONATE = /cannot impersonate(?:-on:[a-z-]+:[a-z]+|:[a-z-]+)? resource "([a-z/]+)"/;
const IMPERSONATED_KINDS = new Set(['users', 'groups', 'serviceaccounts', 'uids', 'userextras']);

/**
 * The one line for a 403 that refuses the impersonation itself, naming the rule to ask for;
 * undefined for any other answer.
 */
export function impersonationRefusal(status: number, message: string): ImpersonationRefusedError | undefined {
  const resource = status === 403 ? CANNOT_IMPERSONATE.exec(message)?.[1] : undefined;
  if (!resource) return undefined;
  const rule = IMPERSONATED_KINDS.has(resource) ? resource : 'users';
  return new ImpersonationRefusedError(`the API server refuses the impersonation: ${message}`, {
    hint: `ask for RBAC "impersonate" on ${rule} in the core API group, or run without --as (and the kubeconfig user's as)`,
  });
}
