// KubeVirt's options, each declared once (flag, env var, config and workspace keys, help), and
// its selection: -l picks VMIs by label, -A and several -n say where to look.
import net from 'node:net';
import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';
import {
  listKey,
  listOption,
  stringKey,
  oneOrListOption,
  parsedKey,
  switchKey,
  switchOption,
  textKey,
  valueOption,
  valuesOf,
  type FileKey,
  type FlagSelection,
  type OptionGroup,
} from '../option-group.js';
import type { ListScope } from '../types.js';
import { normalizeLabelSelector } from './label-selector.js';

declare module '../types.js' {
  /** What KubeVirt reads of the options its flags fill. */
  interface TargetOptions {
    kubeconfig?: string;
    context?: string;
    namespace?: string;
    preserveSession?: boolean;
    /** --as: the user the API server acts as (Impersonate-User). */
    impersonateUser?: string;
    /** --as-group: that user's groups (Impersonate-Group, one each). */
    impersonateGroups?: string[];
    /** --request-timeout: how long one API request may take, in ms; 0: as long as it takes. */
    requestTimeoutMs?: number;
  }
  /** How far KubeVirt's listing looks. */
  interface ListScope {
    /** Every namespace, not only the current one. */
    allNamespaces?: boolean;
    /** These namespaces (default: the current one). */
    namespaces?: string[];
    /** A label selector in kubectl's syntax, already checked (label-selector.ts); the API server matches it. */
    labelSelector?: string;
    /** The VMIs of this name only (a bare name beside -A: which namespace holds it). */
    name?: string;
  }
}

const K8S_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const namespaceName = (v: unknown) => (typeof v === 'string' && K8S_NAME.test(v) ? v : undefined);
const NAMESPACE_KEY: FileKey<'namespace', string> = { key: 'namespace', read: namespaceName, allowed: 'a Kubernetes namespace name' };

/** `-l`'s parser. `-l` was --listen's short form before: an address gets a pointer to --listen. */
function parseSelectorFlag(text: string): string {
  if (net.isIP(text.replace(/^\[(.*)\]$/, '$1')) || text === 'localhost') {
    throw new UsageError(
      `-l ${echoInput(text)} looks like a listen address, but -l is --selector (a label selector, as in kubectl)`,
      `use --listen ${echoInput(text)}`,
    );
  }
  return normalizeLabelSelector(text);
}

/** `--as`'s and `--as-group`'s parser: the value goes into an HTTP header (impersonation.ts), which has no line breaks. */
function parseImpersonated(text: string): string {
  if (/[\u0000-\u001f\u007f]/.test(text))
    throw new UsageError(`--as and --as-group take a name without control characters`, 'check the names given');
  return text;
}

/** One Go duration unit in ms: kubectl's --request-timeout is Go's time.ParseDuration. */
const DURATION_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** kubectl's --request-timeout: `0` (no limit), whole seconds (`30`), or a Go duration (`1m30s`, `500ms`). */
export function parseRequestTimeout(text: string): number {
  const value = text.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value)
    throw new UsageError(
      `invalid --request-timeout "${echoInput(text)}"`,
      "give a duration as kubectl's: 30s, 1m30s, 500ms, or 0 for none",
    );
  return Math.ceil(parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * DURATION_UNITS_MS[unit], 0));
}

const KUBEVIRT_OPTIONS = [
  valueOption('kubeconfig', {
    flags: '--kubeconfig <file>',
    help: 'KubeVirt: kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)',
    section: 'target',
    what: 'a kubeconfig file',
    into: 'kubeconfig',
    env: { name: 'KUBECONFIG', use: 'provider' },
    config: stringKey('kubeconfig'),
    workspace: textKey('kubeconfig', 'a kubeconfig file'),
  }),
  valueOption('context', {
    flags: '--context <name>',
    help: 'KubeVirt: kubeconfig context to use',
    section: 'target',
    what: 'a context name',
    into: 'context',
    config: stringKey('context'),
    workspace: textKey('context', 'a kubeconfig context name'),
  }),
  oneOrListOption('namespace', {
    flags: '-n, --namespace <ns>',
    help: "KubeVirt: namespace of bare VM names (default: the context's, else default); repeated: search several (a bare name is looked for in them)",
    section: 'target',
    what: 'a namespace',
    kubectlShortForm: true,
    into: 'namespace',
    // With several -n (a search), bare names take the first.
    toOption: (value) => valuesOf(value)[0],
    config: NAMESPACE_KEY,
    workspace: {
      ...listKey('namespaces', namespaceName, 'a list of Kubernetes namespace names'),
      single: NAMESPACE_KEY,
      toFlag: (stored) => ((stored as string[]).length === 1 ? (stored as string[])[0] : stored),
    },
  }),
  valueOption('as', {
    flags: '--as <user>',
    help: "KubeVirt: act as this user (kubectl's impersonation; default: the kubeconfig user's as)",
    section: 'target',
    what: 'a user name',
    parse: parseImpersonated,
    into: 'impersonateUser',
  }),
  listOption('asGroup', {
    flags: '--as-group <group>',
    help: "KubeVirt: with --as, act as a member of this group (repeatable; default: the kubeconfig user's as-groups)",
    section: 'target',
    what: 'a group name',
    parse: parseImpersonated,
    into: 'impersonateGroups',
  }),
  valueOption('requestTimeout', {
    flags: '--request-timeout <duration>',
    help: "KubeVirt: how long one API request may take (kubectl's: 30s, 1m, 0 for no limit; default 20s); not the console",
    section: 'target',
    what: 'a duration',
    parse: parseRequestTimeout,
    into: 'requestTimeoutMs',
  }),
  switchOption('preserveSession', {
    flags: '--preserve-session',
    help: 'KubeVirt: refuse to take over a VNC session another client holds',
    section: 'target',
    // Only where a VNC session is held open: screenshot never takes one over unless --take-over,
    // a serial console (console) has no such session, list holds none.
    commands: ['open', 'proxy'],
    into: 'preserveSession',
    fallback: false,
  }),
  valueOption('selector', {
    flags: '-l, --selector <selector>',
    help: "KubeVirt: the VMIs whose labels match, in kubectl's syntax (app=web,tier!=db, 'env in (a,b)', !legacy)",
    section: 'selector',
    kubectlShortForm: true,
    parse: parseSelectorFlag,
    workspace: parsedKey('selector', normalizeLabelSelector, "a label selector in kubectl's syntax, e.g. app=web,tier!=db"),
  }),
  switchOption('allNamespaces', {
    flags: '-A, --all-namespaces',
    help: 'KubeVirt: every namespace (default: the current one, or each --namespace); beside a bare name, the one namespace holding it',
    section: 'selector',
    workspace: switchKey('allNamespaces'),
  }),
] as const;

function placeOf(flags: Readonly<Record<string, unknown>>): { all: boolean; namespaces: string[] } {
  const namespaces = valuesOf(flags.namespace);
  if (flags.allNamespaces && namespaces.length > 0) {
    throw new UsageError(
      '-A/--all-namespaces and --namespace contradict each other',
      'give -A for every namespace, or -n NS (repeatable) for some',
    );
  }
  return { all: Boolean(flags.allNamespaces), namespaces };
}

/** -l selects by label; -A, or several -n, say where (alone they select every VMI there). */
function kubevirtSelection(flags: Readonly<Record<string, unknown>>): FlagSelection | undefined {
  const { all, namespaces } = placeOf(flags);
  const selector = flags.selector as string | undefined;
  const widens = all || namespaces.length > 1;
  if (selector === undefined && !widens) return undefined;
  const shown = [
    selector !== undefined ? `-l ${selector}` : undefined,
    all ? '-A' : namespaces.map((ns) => `-n ${ns}`).join(' ') || undefined,
  ];
  return {
    scope: { labelSelector: selector, allNamespaces: all || undefined, namespaces: namespaces.length ? namespaces : undefined },
    shownAs: shown.filter(Boolean).join(' '),
    reach: selector !== undefined ? 'matching' : all ? 'everywhere' : 'places',
  };
}

/**
 * Where a bare name is looked for: every namespace with -A, each -n when several; else
 * undefined (the one namespace of bare names), as for `NS/NAME`, which says where it is.
 */
function kubevirtNameScope(flags: Readonly<Record<string, unknown>>, name: string): ListScope | undefined {
  const { all, namespaces } = placeOf(flags);
  if (name.includes('/')) return undefined;
  if (all) return { allNamespaces: true };
  return namespaces.length > 1 ? { namespaces } : undefined;
}

export const kubevirtOptions: OptionGroup<typeof KUBEVIRT_OPTIONS> = {
  provider: 'kubevirt',
  options: KUBEVIRT_OPTIONS,
  selectingFlags: ['selector', 'namespace', 'allNamespaces'],
  // -n and -A say where to look: either on the command line replaces where a workspace looks.
  replacedTogether: ['namespace', 'allNamespaces'],
  selection: kubevirtSelection,
  nameScope: kubevirtNameScope,
};
