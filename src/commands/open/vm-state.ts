/**
 * `open`'s sessions following their VMs: each session whose provider can tell (KubeVirt,
 * OpenStack) has its VM's state shown and logged, and when the VM runs again after it stopped,
 * the session is brought back: a viewer that exited meanwhile is launched again, a session
 * whose pre-flight failed (the VM was not running) starts. Lives outside src/proxy: the data
 * path knows no provider.
 */
import { describeError } from '../../errors.js';
import { type ConsoleSession, type UpstreamSource, sourceChain, vmIdentity } from '../../proxy/index.js';
import type { ConsoleTarget, VmPhase, VmState } from '../../targets/types.js';
import type { ViewerStatusEvent } from '../../viewers/viewer-supervisor.js';

/** Phases from which `Running` means the VM came back (its console went away meanwhile). */
const CAME_BACK_FROM: ReadonlySet<VmPhase> = new Set(['Stopped', 'Failed', 'gone', 'Starting', 'Migrating', 'Unknown']);

/** Phases a row is marked for: the VM is not there to show a console. */
const DOWN: ReadonlySet<VmPhase> = new Set(['Stopped', 'Failed', 'gone']);

/** What follows VM state needs of `open`. */
export interface VmStateHooks {
  /** Shows the state (the TUI's row); the log line is written here already. */
  show(sessionId: number, state: VmState): void;
  /** The VM runs again: start the session if it failed, else launch its viewer again. */
  runsAgain(session: ConsoleSession, action: 'start' | 'reopen-viewer'): Promise<void>;
}

/** Where sessions come and go (a SessionRegistry). */
interface SessionEvents {
  on(event: 'removed', listener: (session: ConsoleSession) => void): unknown;
  off(event: 'removed', listener: (session: ConsoleSession) => void): unknown;
}

/** Where viewers open and exit (a ViewerSupervisor). */
interface ViewerEvents {
  on(event: 'status', listener: (event: ViewerStatusEvent) => void): unknown;
  off(event: 'status', listener: (event: ViewerStatusEvent) => void): unknown;
}

/**
 * The provider's target under the wrappers that sharing and recording add (RFB hub, shared
 * serial line, recorder): each keeps what it wraps as `inner`.
 */
export function followableTarget(source: UpstreamSource): Required<Pick<ConsoleTarget, 'followState'>> | undefined {
  const inner = [...sourceChain(source)].at(-1) ?? source;
  const follow = (inner as Partial<ConsoleTarget>).followState;
  return follow ? { followState: (context) => follow.call(inner, context) } : undefined;
}

/** Which VM a session's console is of: its provider target's identity (the console type left out). */
function vmKeyOf(source: UpstreamSource): string {
  return vmIdentity([...sourceChain(source)].at(-1) ?? source);
}

/** `Stopped (Succeeded)`, `Running`. */
function vmStateText(state: VmState): string {
  return state.detail && state.detail !== state.phase ? `${state.phase} (${state.detail})` : state.phase;
}

/** One follow per session; every follow ends when its session is removed or on stopAll(). */
export class VmStateFollowers {
  private readonly following = new Map<number, AbortController>();
  /** Sessions whose viewer exited (closed or failed) and was not launched again since. */
  private readonly viewerGone = new Set<number>();
  /** Per VM (sessions of one VM's screen and serial console follow it alike): the phase last logged. */
  private readonly loggedPhase = new Map<string, VmPhase>();
  /** Each followed session's VM. */
  private readonly vmOf = new Map<number, string>();
  /** After stopAll(): a follow asked for late (a session that failed as open gave up) would keep the process alive. */
  private stopped = false;
  private readonly onRemoved = (session: ConsoleSession) => this.unfollow(session.id);
  private readonly onViewer = (event: ViewerStatusEvent) => {
    if (event.state === 'open') this.viewerGone.delete(event.key);
    else this.viewerGone.add(event.key);
  };

  constructor(
    private readonly hooks: VmStateHooks,
    private readonly sessions: SessionEvents,
    private readonly viewers?: ViewerEvents,
  ) {
    sessions.on('removed', this.onRemoved);
    viewers?.on('status', this.onViewer);
  }

  /** Starts following the session's VM, when its provider can; once per session. */
  follow(session: ConsoleSession): void {
    const target = followableTarget(session.source);
    if (!target || this.stopped || this.following.has(session.id)) return;
    const controller = new AbortController();
    this.following.set(session.id, controller);
    let last: VmState | undefined;
    const vm = vmKeyOf(session.source);
    this.vmOf.set(session.id, vm);
    const onState = (state: VmState) => {
      if (controller.signal.aborted || state.phase === last?.phase) return;
      const previous = last;
      last = state;
      // One line per change of the VM, not one per console of it.
      if (this.loggedPhase.get(vm) !== state.phase) session.log(DOWN.has(state.phase) ? 'warn' : 'info', `VM ${vmStateText(state)}`);
      this.loggedPhase.set(vm, state.phase);
      this.hooks.show(session.id, state);
      if (state.phase !== 'Running') return;
      if (previous ? CAME_BACK_FROM.has(previous.phase) : this.failed(session)) this.cameBack(session);
    };
    target
      .followState({ signal: controller.signal, onState, log: (level, message) => session.log(level, message) })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) session.log('debug', `VM state: not followed: ${describeError(err)}`);
      });
  }

  /**
   * A session whose pre-flight failed (its VM was off at open) and whose VM the first reading
   * finds running: it was started before the follow began (the follow starts a moment after
   * the first viewers), so no stop is seen before it runs; it is started all the same.
   */
  private failed(session: ConsoleSession): boolean {
    return session.snapshot().state === 'error';
  }

  private cameBack(session: ConsoleSession): void {
    const failed = this.failed(session);
    if (!failed && !this.viewerGone.has(session.id)) return;
    const action = failed ? 'start' : 'reopen-viewer';
    session.log('info', failed ? 'VM runs again: starting the console' : 'VM runs again: reopening the viewer');
    this.hooks.runsAgain(session, action).catch((err: unknown) => session.log('error', describeError(err)));
  }

  unfollow(sessionId: number): void {
    this.following.get(sessionId)?.abort();
    this.following.delete(sessionId);
    this.viewerGone.delete(sessionId);
    const vm = this.vmOf.get(sessionId);
    this.vmOf.delete(sessionId);
    // The VM's last console no longer followed: a console of it opened again logs its state anew.
    if (vm !== undefined && ![...this.vmOf.values()].includes(vm)) this.loggedPhase.delete(vm);
  }

  /** Ends every follow (their sockets and timers) and stops listening. */
  stopAll(): void {
    this.stopped = true;
    for (const id of [...this.following.keys()]) this.unfollow(id);
    this.sessions.off('removed', this.onRemoved);
    this.viewers?.off('status', this.onViewer);
  }
}
