// What a provider can do for a console beyond dialling it: each capability is one optional member
// of TargetCapabilities, a function of an abort signal and JSON arguments that answers JSON, and
// one line of CAPABILITY_ANSWERS, which says what a good answer is. --via carries every capability
// alike (a far target names the ones it has; the near side asks for one by name), so a new one is
// its declaration here, the providers that offer it and the code that uses it.

/** A connection file's settings, key to value, as remote-viewer's `[virt-viewer]` section holds them. */
export type ConnectionFileSettings = Readonly<Record<string, string | number>>;

/** What `vconsole power` can ask of a VM, in words common to every provider (each maps them to its platform's own). */
export const POWER_ACTIONS = ['start', 'stop', 'restart', 'reset', 'pause', 'resume', 'shutdown'] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

/** `check` makes sure the action can be asked (the provider offers it, the user may) and does nothing; `act` does it. */
export type PowerStep = 'check' | 'act';

export interface TargetCapabilities {
  /**
   * A console only a browser shows (its kind's carriage is `browser`, e.g. Nova's rdp-html5
   * and webmks): the address of the page the platform serves for it, asked for anew on each
   * call. It holds the console's token: shown to the user once, never logged.
   */
  browserUrl?(signal: AbortSignal): Promise<string>;
  /**
   * A console its viewer reaches by itself, through the platform's own proxy (Proxmox VE's
   * SPICE proxy): the settings of a connection file (the `[virt-viewer]` keys remote-viewer
   * reads: type, host, proxy, tls-port, password, ca, host-subject, ...), asked for anew on
   * each call. They hold a one-time password: written only to a private file, never logged.
   */
  connectionFile?(signal: AbortSignal): Promise<ConnectionFileSettings>;
  /**
   * Changes the VM's power state through the platform's own API, as its CLI does (virsh
   * destroy, KubeVirt's stop subresource, ...). With `check` it only makes sure it could: a
   * UsageError for an action the provider lacks, an error for one the user may not ask. It
   * resolves with what was done in a few words (`stopped (virsh destroy)`).
   */
  power?(signal: AbortSignal, action: PowerAction, step: PowerStep): Promise<string>;
}

export type CapabilityName = keyof TargetCapabilities;

/** What each capability answers, checked where an answer crosses a boundary (--via): a wrong one is refused. */
export const CAPABILITY_ANSWERS: { readonly [Name in CapabilityName]-?: (answer: unknown) => boolean } = {
  browserUrl: (answer) => typeof answer === 'string',
  power: (answer) => typeof answer === 'string',
  connectionFile: (answer) =>
    !!answer &&
    typeof answer === 'object' &&
    !Array.isArray(answer) &&
    Object.values(answer).every((value) => typeof value === 'string' || typeof value === 'number'),
};

/** Every capability's name, from the table: what --via can carry. */
export const CAPABILITY_NAMES = Object.keys(CAPABILITY_ANSWERS) as CapabilityName[];

/** The names of the capabilities `capabilities` offers. */
export function offeredCapabilities(capabilities: TargetCapabilities | undefined): CapabilityName[] {
  return CAPABILITY_NAMES.filter((name) => typeof capabilities?.[name] === 'function');
}
