import { UsageError, echoTarget } from '../../errors.js';
import { hasKubeConfiguration, loadKubeAccess, processKubeEnvironment, type KubeEnvironment } from './kubernetes-api.js';
import type { ConsoleProvider } from '../types.js';
import { KUBEVIRT_CONSOLE_TYPES } from './vmi-consoles.js';
import { KubevirtTarget } from './vmi-target.js';
import { describeVmiSearch, listKubevirtVms } from './listing.js';

/** RFC 1123 label / subdomain, what Kubernetes accepts for namespaces and VMI names. */
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** Kubernetes names (DNS subdomains, as VMI names are) are at most this long. */
const MAX_NAME_CHARS = 253;

/** `NAME` or `NS/NAME` -> parts, validated as Kubernetes names. */
function parseVmiName(text: string, raw: string): { namespace?: string; name: string } {
  const parts = text.split('/');
  if (parts.length > 2 || parts.some((p) => p.length > MAX_NAME_CHARS || !DNS_NAME.test(p))) {
    throw new UsageError(
      `bad KubeVirt target "${echoTarget(raw)}"`,
      `use NAME, NS/NAME or kubevirt:NS/NAME with at most ${MAX_NAME_CHARS} lower-case letters, digits, "-" and "." each`,
    );
  }
  return parts.length === 2 ? { namespace: parts[0], name: parts[1] } : { name: parts[0] };
}

/**
 * The KubeVirt provider reading its kubeconfig from `environment` (KUBECONFIG, the home
 * directory, the in-cluster service account): the process's by default, a fixture's in tests.
 */
export function createKubevirtProvider(environment: () => KubeEnvironment = processKubeEnvironment): ConsoleProvider {
  return {
    id: 'kubevirt',
    label: 'KubeVirt',
    schemes: ['kubevirt', 'kv'],
    syntax: [{ usage: '[NS/]NAME, kubevirt:|kv:[NS/]NAME', console: 'KubeVirt VMI (kubeconfig as kubectl reads it)' }],
    consoleTypes: KUBEVIRT_CONSOLE_TYPES,
    bareNames: true,
    resolve(spec, options) {
      const { namespace, name } = parseVmiName(spec.rest, spec.raw);
      return new KubevirtTarget(spec.raw, name, namespace, options, environment);
    },
    list: (options, scope) => listKubevirtVms(options, scope, environment),
    async followList(options, scope, context) {
      const { followKubevirtVms } = await import('./listing-watch.js');
      return followKubevirtVms(options, scope, environment, context);
    },
    configured: async (options) => hasKubeConfiguration(options, environment()),
    async describeSearch(options, scope) {
      const access = await loadKubeAccess(options, environment());
      return describeVmiSearch(scope, access);
    },
    async describePlace(options) {
      const access = await loadKubeAccess(options, environment());
      return [
        { label: 'context', value: access.config.getCurrentContext() },
        { label: 'namespace', value: access.namespace },
      ];
    },
  };
}

/** `NAME`, `NS/NAME`, `kubevirt:[NS/]NAME`: a KubeVirt VMI's VNC console through the API server. */
export const kubevirtProvider: ConsoleProvider = createKubevirtProvider();
