// A domain's state in common words, and following it: libvirt's lifecycle events through
// `virsh event --loop` (each event is followed by one `domstate`), else polling `domstate`.
import { describeError } from '../../errors.js';
import type { VmState, VmStateContext } from '../types.js';
import { pollVmState } from '../vm-state-poll.js';
import { pause } from '../../retry/backoff.js';
import type { LibvirtConnection } from './connection.js';
import { VirshError, runVirsh, spawnVirsh } from './host-command.js';

/** virsh's state words (virshDomainStateToString, in the C locale). */
const LIBVIRT_PHASES: Record<string, VmState['phase']> = {
  running: 'Running',
  idle: 'Running',
  blocked: 'Running',
  'in shutdown': 'Running',
  paused: 'Paused',
  pmsuspended: 'Paused',
  'shut off': 'Stopped',
  dying: 'Stopped',
  crashed: 'Failed',
  'no state': 'Unknown',
};

/** The longest line of `virsh event` output read; longer ones are cut (a name is at most a few hundred bytes). */
const EVENT_LINE_LIMIT = 4096;
/** A restarted `virsh event` after it ended: not sooner than this. */
const EVENT_RESTART_MS = 5_000;

/** `virsh domstate` output (`running`, `shut off`, ...) in common words. */
export function libvirtState(word: string | undefined): VmState {
  if (word === undefined) return { phase: 'gone' };
  const said = word.trim().toLowerCase();
  return { phase: LIBVIRT_PHASES[said] ?? 'Unknown', detail: said };
}

/** virsh's words for a domain that is not there. */
export function isNoSuchDomain(err: unknown): boolean {
  return err instanceof VirshError && /failed to get domain|domain not found|no domain with matching/i.test(err.said);
}

/** The domain's state now; a domain that does not exist (any more) is `gone`. */
async function readDomainState(connection: LibvirtConnection, domain: string, signal: AbortSignal): Promise<VmState> {
  try {
    return libvirtState(await runVirsh(connection, ['domstate', '--', domain], signal));
  } catch (err) {
    if (isNoSuchDomain(err)) return libvirtState(undefined);
    throw err;
  }
}

/** libvirt's lifecycle event types (virsh event's words) and what the domain is after each. */
const EVENT_PHASES: Record<string, VmState['phase']> = {
  started: 'Running',
  resumed: 'Running',
  suspended: 'Paused',
  pmsuspended: 'Paused',
  stopped: 'Stopped',
  crashed: 'Failed',
  undefined: 'gone',
};

/**
 * `event 'lifecycle' for domain 'NAME': Suspended Paused` as a state: from the event itself, so
 * a quick pause and resume are both seen, in order. Undefined for events that change no state
 * (Defined, Shutdown) and for lines that are no event.
 */
export function lifecycleEventState(line: string): VmState | undefined {
  const match = /^event 'lifecycle' for domain '.*': (\S+)(?: (\S+))?\s*$/.exec(line);
  if (!match) return undefined;
  const phase = EVENT_PHASES[match[1].toLowerCase()];
  if (!phase) return undefined;
  return { phase, detail: [match[1], match[2]].filter(Boolean).join(' ').toLowerCase() };
}

/**
 * Reports the domain's state (`domstate`), then each lifecycle event's (`virsh event --domain D
 * --loop --event lifecycle`), until the signal aborts. After the domain stops, or when the event
 * stream ends, it reads domstate again and starts over; when events cannot be had at all (a
 * transient domain that is gone, an old virsh) it says so and polls domstate instead.
 */
export async function followDomain(connection: LibvirtConnection, domain: string, context: VmStateContext): Promise<void> {
  const { signal } = context;
  while (!signal.aborted) {
    let first: VmState;
    try {
      first = await readDomainState(connection, domain, signal);
      if (!signal.aborted) context.onState(first);
    } catch (err) {
      if (signal.aborted) return;
      context.log('debug', `cannot read the domain's state: ${describeError(err)}`);
      await pause(context.pollMs ?? EVENT_RESTART_MS, signal);
      continue;
    }
    // A transient domain that is gone has no events to wait for: polling notices it come back.
    const followed = first.phase === 'gone' ? 'refused' : await watchEvents(connection, domain, signal, context.onState);
    if (signal.aborted) return;
    if (followed === 'refused') {
      context.log('debug', 'no libvirt lifecycle events for this domain; polling its state');
      await pollVmState(async (s) => readDomainState(connection, domain, s), context);
      return;
    }
    if (followed === 'ended') await pause(EVENT_RESTART_MS, signal);
  }
}

/**
 * Runs `virsh event --loop`, reporting each lifecycle event's state, until the domain stops
 * (`stopped`: it may be gone, or come back as a new domain), the stream ends (`ended`: a lost
 * connection) or fails at once (`refused`), or the signal aborts.
 */
function watchEvents(
  connection: LibvirtConnection,
  domain: string,
  signal: AbortSignal,
  onState: (state: VmState) => void,
): Promise<'stopped' | 'ended' | 'refused'> {
  return new Promise((resolve) => {
    const child = spawnVirsh(connection, ['event', '--domain', domain, '--loop', '--event', 'lifecycle']);
    let sawEvent = false;
    let stopped = false;
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stderr?.resume();
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      // What follows the last newline waits for the rest of its line, within the bound.
      pending = (lines.pop() ?? '').slice(0, EVENT_LINE_LIMIT);
      for (const line of lines) {
        const state = lifecycleEventState(line);
        if (!state || stopped || signal.aborted) continue;
        sawEvent = true;
        onState(state);
        if (state.phase === 'Stopped' || state.phase === 'gone') {
          stopped = true;
          child.kill('SIGTERM');
        }
      }
    });
    child.once('error', () => undefined);
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      resolve(stopped ? 'stopped' : sawEvent || code === 0 ? 'ended' : 'refused');
    });
  });
}
