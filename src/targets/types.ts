import type { ConsoleType } from '../console-kinds/index.js';
import type { ConsoleFacts, LogLevel, UpstreamSource } from '../proxy/types.js';
import type { TargetCapabilities } from './capabilities.js';

/** A console the user named, resolved by its provider; the data path dials it per client. */
export interface ConsoleTarget extends UpstreamSource {
  /** The text the user typed (after alias expansion), for messages. */
  readonly input: string;
  /**
   * Its facts (UpstreamSource.facts), with the console this target opens. With `auto`, a
   * provider that can tell (KubeVirt: does the VM have a display; OpenStack: what Nova serves)
   * settles it in check(); before that it is the provider's first choice.
   */
  readonly facts: TargetFacts;
  /**
   * Follows the VM's state (KubeVirt: a watch on the VMI; OpenStack: polling the server) until
   * `context.signal` aborts, then resolves. It reconnects on its own and reports each state it
   * sees, repeats included. Absent where a console is no VM (demo, websocket, tcp, unix).
   */
  followState?(context: VmStateContext): Promise<void>;
  /** What else the provider can do for this console, beyond dialling it (src/targets/capabilities.ts); none when absent. */
  readonly capabilities?: TargetCapabilities;
}

/** A target's facts: a console type is always known (the provider's first choice until check() settles it). */
export type TargetFacts = ConsoleFacts & { consoleType: ConsoleType };

export type { ConnectionFileSettings } from './capabilities.js';

/**
 * What a VM is doing, in words common to every provider: `Starting` covers KubeVirt's
 * Pending/Scheduling/Scheduled and Nova's BUILD; `gone` is a VM deleted (or never there).
 */
export type VmPhase = 'Running' | 'Stopped' | 'Paused' | 'Migrating' | 'Starting' | 'Failed' | 'Unknown' | 'gone';

export interface VmState {
  phase: VmPhase;
  /** The provider's own word when it differs (`Succeeded`, `SHUTOFF`), for log lines. */
  detail?: string;
}

export interface VmStateContext {
  signal: AbortSignal;
  onState(state: VmState): void;
  /** A line worth logging (never a secret): a fallback to polling, a reconnect. */
  log(level: LogLevel, message: string): void;
  /** How often a provider that polls asks; default VM_STATE_POLL_MS. */
  pollMs?: number;
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
 * config file, as each option's declaration says (src/targets/*\/options.ts, merged by
 * src/targets/option-groups.ts); a provider takes what it needs and ignores the rest.
 * A provider's own fields are added beside its declarations, in its options.ts, by
 * augmenting this interface (`declare module '../types.js'`), so a new provider's options
 * are its own files: KubeVirt's and OpenStack's are there, the shared ones here.
 */
export interface TargetOptions {
  // Generic websocket / TLS (src/targets/dial/options.ts)
  insecure?: boolean;
  ca?: string;
  /**
   * Which console of the VM (default `auto`: the provider picks, a screen when the VM has one);
   * a concrete type must be one its provider offers.
   */
  consoleType?: ConsoleTypeChoice;
  /**
   * Who can answer a provider's question (OpenStack asks before sending saved credentials to a
   * cloud that only a file in the current directory names): `terminal` (the default) asks on
   * stdin/stderr when both are terminals, and refuses otherwise; `none` refuses without asking,
   * for while the TUI holds the terminal; `background` is a run nobody watches (a Tab's
   * completion), which does not even read a file found only in the current directory.
   */
  questions?: 'terminal' | 'none' | 'background';
}

/**
 * The kinds of console a VM can have: a new kind is its file in src/console-kinds plus one line
 * there, and the providers that offer it (their `consoleTypes`). What differs between kinds
 * (who speaks first, how many connections, sharing, recording) is the kind's data.
 */
export type { ConsoleType } from '../console-kinds/index.js';

/** What the user asks for: one console type, or `auto`. */
export type ConsoleTypeChoice = ConsoleType | 'auto';

/** Every console type, for parsing `--type` and `#TYPE`. */
export { CONSOLE_TYPES } from '../console-kinds/index.js';

/** One spelling of a provider's targets, as `--help` and the README show it. */
interface TargetSyntax {
  /** What to type, e.g. `openstack:NAME|ID, os:NAME|ID`. */
  readonly usage: string;
  /** What it opens, e.g. `OpenStack server (clouds.yaml / OS_* as the openstack CLI reads them)`. */
  readonly console: string;
}

/** One VM a user could open, as `vconsole list` prints it. */
export interface ListedVm {
  /** Provider id, e.g. `kubevirt`. */
  provider: string;
  /** What to pass to `vconsole open` / `proxy`. */
  target: string;
  name: string;
  namespace?: string;
  /** KubeVirt phase (Running, ...) or Nova status (ACTIVE, SHUTOFF, ...). */
  state: string;
  /** Whether its console can be opened now. */
  console: boolean;
}

/** A listed VM that appeared, changed what list shows of it (its state, its console) or went. */
export interface ListedChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  vm: ListedVm;
}

/** What `list --follow` and `open --follow` hand a provider that follows its listing. */
export interface ListFollowContext {
  signal: AbortSignal;
  /** The whole listing, once, when it is first known. */
  onListed(vms: ListedVm[]): void;
  /** Each change after it, in order, none lost or told twice. */
  onChange(change: ListedChange): void;
  log(level: LogLevel, message: string): void;
}

/**
 * How far `vconsole list` looks. Each provider adds the fields its selectors fill, in its own
 * options.ts (TypeScript's interface merging: `declare module '../types.js'`), so a new
 * selector edits no file but its provider's.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the providers' options.ts
export interface ListScope {}

/**
 * One provider a file; registered with one line in src/targets/registry.ts, which derives the
 * `--help` targets, the config's `defaults.provider` values and `vconsole list` from these fields.
 * The registry loads every provider file (for `proxy --help` too): keep heavy modules (ws,
 * yaml, @kubernetes/client-node) behind `await import()` inside functions.
 */
export interface ConsoleProvider {
  /** Provider id shown to users: `kubevirt`, `openstack`, `demo`, ... */
  readonly id: string;
  /** What the platform is called in prose, e.g. `KubeVirt` (hints say what it offers). */
  readonly label?: string;
  /** Schemes it answers to, lower case, e.g. `['openstack', 'os']`. */
  readonly schemes: readonly string[];
  /** Its target spellings for `--help` (and the README's Targets table). */
  readonly syntax: readonly TargetSyntax[];
  /** The console types it can open; `auto`, when it cannot tell, means the first in autoRank order. */
  readonly consoleTypes: readonly ConsoleType[];
  /** Whether a bare `NAME` / `NS/NAME` may mean this provider (config `defaults.provider`). */
  readonly bareNames?: boolean;
  /** Turns a spec into a target; throws UsageError on malformed input. Does no I/O. */
  resolve(spec: TargetSpec, options: TargetOptions): ConsoleTarget;
  /** The VMs it can enumerate, for `vconsole list`; absent when it cannot. */
  list?(options: TargetOptions, scope: ListScope): Promise<ListedVm[]>;
  /**
   * Follows what `list` finds until `context.signal` aborts (KubeVirt: a watch per namespace);
   * absent, `list --follow` and `open --follow` ask `list` again now and then.
   */
  followList?(options: TargetOptions, scope: ListScope, context: ListFollowContext): Promise<void>;
  /**
   * Whether the options and the environment point it somewhere to list (a kubeconfig, a cloud,
   * a cluster URL, a connection), found without asking any server: `list` with no provider
   * named lists the one provider that is. Absent: it is never listed unnamed.
   */
  configured?(options: TargetOptions): Promise<boolean>;
  /**
   * What `list` with this scope searches, for the error when a selector matches nothing, e.g.
   * `label selector "app=web" in namespace "prod" of cluster https://… (context lab)`.
   */
  describeSearch?(options: TargetOptions, scope: ListScope): Promise<string>;
  /**
   * Where the options point, as the TUI's header names it (k9s's context line): KubeVirt's
   * context and namespace, OpenStack's cloud and region. Reads configuration, asks no server.
   */
  describePlace?(options: TargetOptions): Promise<readonly PlaceFact[]>;
}

/** One fact of where a provider points: `context` `kind-lab`, `region` `RegionOne`. */
interface PlaceFact {
  label: string;
  value: string;
}
