// A domain's state in common words, and following it: libvirt's lifecycle events through
// `virsh event --loop` (each event is followed by one `domstate`), else polling `domstate`.
import { describeError } from '../../errors.js';
import type { VmState, VmStateContext } from '../types.js';
import { pause, pollVmState } from '../vm-state-poll.js';
import type { LibvirtConnection } from './connection.js';
import { VirshError, runVirsh, spawnInvocation, virshInvocation } from './host-command.js';

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
export async function readDomainState(connection: LibvirtConnection, domain: string, signal: AbortSignal): Promise<VmState> {
  try {
    return libvirtState(await runVirsh(connection, ['domstate', '--', domain], signal));
  } catch (err) {
    if (isNoSuchDomain(err)) return libvirtState(undefined);
    throw err;
  }
}

/**
 * Reports the domain's state, then again after each lifecycle event (`virsh event --domain D
 * --loop --event lifecycle`), until the signal aborts. When events cannot be had (an old virsh,
 * a domain not defined yet) it says so once and polls domstate instead.
 */
export async function followDomain(connection: LibvirtConnection, domain: string, context: VmStateContext): Promise<void> {
  const { signal } = context;
  const report = async () => {
    const state = await readDomainState(connection, domain, signal);
    if (!signal.aborted) context.onState(state);
    return state;
  };
  while (!signal.aborted) {
    let first: VmState;
    try {
      first = await report();
    } catch (err) {
      if (signal.aborted) return;
      context.log('debug', `cannot read the domain's state: ${describeError(err)}`);
      await pause(context.pollMs ?? EVENT_RESTART_MS, signal);
      continue;
    }
    // A transient domain that is gone has no events to wait for: polling notices it come back.
    const followed = first.phase === 'gone' ? 'gone' : await watchEvents(connection, domain, signal, report);
    if (signal.aborted) return;
    if (followed !== 'ended') {
      context.log('debug', 'libvirt lifecycle events are not available for this domain; polling its state');
      await pollVmState(async (s) => readDomainState(connection, domain, s), context);
      return;
    }
    await pause(EVENT_RESTART_MS, signal);
  }
}

/**
 * Runs `virsh event --loop` until it ends or the signal aborts, reporting on each event line.
 * Resolves `ended` when it ran and stopped (a lost connection), `refused` when it failed at once.
 */
function watchEvents(
  connection: LibvirtConnection,
  domain: string,
  signal: AbortSignal,
  report: () => Promise<unknown>,
): Promise<'ended' | 'refused'> {
  const invocation = virshInvocation(connection, ['event', '--domain', domain, '--loop', '--event', 'lifecycle']);
  return new Promise((resolve) => {
    const child = spawnInvocation(invocation);
    child.stdin?.end();
    let sawEvent = false;
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stderr?.resume();
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      // What follows the last newline waits for the rest of its line, within the bound.
      pending = (lines.pop() ?? '').slice(0, EVENT_LINE_LIMIT);
      if (!lines.some((line) => line.startsWith('event '))) return;
      sawEvent = true;
      report().catch(() => undefined);
    });
    child.once('error', () => undefined);
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      resolve(sawEvent || code === 0 ? 'ended' : 'refused');
    });
  });
}
