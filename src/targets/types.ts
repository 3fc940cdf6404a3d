import type { UpstreamSource } from '../proxy/types.js';

/** A console the user named, resolved by its provider; the data path dials it per client. */
export interface ConsoleTarget extends UpstreamSource {
  /** The text the user typed (after alias expansion), for messages. */
  readonly input: string;
}

/** A target split at its scheme: `kubevirt:ns/vm` -> scheme `kubevirt`, rest `ns/vm`. */
export interface TargetSpec {
  /** The full text, e.g. `ws://h:6080/?token=...` (may hold a secret: never print it). */
  raw: string;
  /** Lower-case scheme, or undefined for a bare `NAME` / `NS/NAME`. */
  scheme?: string;
  /** What follows `scheme:` (the whole text when there is no scheme). */
  rest: string;
}

/**
 * Options every provider may read. The CLI fills them from flags, environment and the
 * config file; a provider takes what it needs and ignores the rest.
 */
export interface TargetOptions {
  // KubeVirt
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  preserveSession?: boolean;
  // OpenStack
  cloud?: string;
  /** OpenStack region (default: the cloud's, else $OS_REGION_NAME). */
  region?: string;
  /** OpenStack endpoint interface (default: public). */
  interface?: 'public' | 'internal' | 'admin';
  // Generic websocket / TLS
  insecure?: boolean;
  ca?: string;
  /** `vnc` (default) or `serial`: which console of the VM. Serial is for later waves. */
  consoleType?: 'vnc' | 'serial';
}

/** One provider a file; registered with one line in src/targets/index.ts. */
export interface ConsoleProvider {
  /** Provider id shown to users: `kubevirt`, `openstack`, `demo`, ... */
  readonly id: string;
  /** Schemes it answers to, lower case, e.g. `['openstack', 'os']`. */
  readonly schemes: readonly string[];
  /** Turns a spec into a target; throws UsageError on malformed input. Does no I/O. */
  resolve(spec: TargetSpec, options: TargetOptions): ConsoleTarget;
}
