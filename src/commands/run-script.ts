/**
 * Playing a script's steps on several consoles at once: each target goes through the steps in
 * order, on its own; a step that fails or runs out of time ends that target's script (the others
 * go on); an abort (Ctrl+C) stops every target where it is. What a step does is the caller's
 * (`perform`): here only the order, the timeouts and the news of each step.
 */
import { VconsoleError, describeError } from '../errors.js';
import { formatDuration } from './duration.js';
import type { Step } from './run-steps.js';

/** What a target's script came to: finished, or the step (1-based) it failed or stopped at and why. */
export type ScriptOutcome = { status: 'done' } | { status: 'failed' | 'stopped'; step: number; why: string };

/** News of one target's step, for the live table or the step lines. */
export interface StepNews {
  target: number;
  step: number;
  total: number;
  kind: Step['kind'];
  /** What the step is, without secrets: `type (12 chars)`, `wait /login:/`. */
  what: string;
  state: 'running' | 'ok' | 'failed' | 'stopped';
  /** The step's result (ok) or why it failed. */
  detail?: string;
}

/** The default timeout of a step that gives none: a wait for a boot, other steps a generous bound. */
export const DEFAULT_STEP_TIMEOUT_MS: Readonly<Record<Step['kind'], number>> = {
  type: 5 * 60_000,
  send: 2 * 60_000,
  wait: 5 * 60_000,
  sleep: 24 * 3_600_000,
  screenshot: 2 * 60_000,
  power: 2 * 60_000,
};

/** How much longer than its timeout a wait step may take before the runner gives up on it. */
const WAIT_BACKSTOP_MS = 1000;

/** How long a stopped step's work may take to stop (let go of held keys, close its connection). */
const STOP_GRACE_MS = 5000;

/** Resolves once `work` settled, or after `ms`. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void work
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        resolve();
      });
  });
}

/** A step that ran out of time. */
class StepTimeoutError extends VconsoleError {}

/** What a step is, for people: never the typed text (it may be a password), only its length. */
function describeStep(step: Step): string {
  switch (step.kind) {
    case 'type':
      return `type (${[...step.text].length} chars)`;
    case 'send':
      return `send ${step.keys.map((key) => (key.kind === 'break' ? 'break' : key.chord.text)).join(' ')}`;
    case 'wait':
      return `wait ${step.pattern}`;
    case 'sleep':
      return `sleep ${formatDuration(step.ms)}`;
    case 'screenshot':
      return 'screenshot';
    case 'power':
      return `power ${step.action}`;
  }
}

/** Does one step on one target; resolves with the words of its result; must give up once `signal` aborts. */
export type PerformStep = (target: number, step: Step, signal: AbortSignal) => Promise<string>;

/**
 * Plays `steps` on `targets` targets in parallel; resolves with each target's outcome once all
 * settled. `stop` aborting (Ctrl+C) stops every target at the step it is on.
 */
export async function playScript(
  targets: number,
  steps: readonly Step[],
  perform: PerformStep,
  news: (news: StepNews) => void,
  stop: AbortSignal,
): Promise<ScriptOutcome[]> {
  return Promise.all(Array.from({ length: targets }, (_, target) => playOn(target, steps, perform, news, stop)));
}

async function playOn(
  target: number,
  steps: readonly Step[],
  perform: PerformStep,
  news: (news: StepNews) => void,
  stop: AbortSignal,
): Promise<ScriptOutcome> {
  for (const [index, step] of steps.entries()) {
    const said = { target, step: index + 1, total: steps.length, kind: step.kind, what: describeStep(step) };
    if (stop.aborted) {
      news({ ...said, state: 'stopped' });
      return { status: 'stopped', step: index + 1, why: 'stopped before it began' };
    }
    news({ ...said, state: 'running' });
    try {
      const detail = await withTimeout(step, (signal) => perform(target, step, signal), stop);
      news({ ...said, state: 'ok', detail });
    } catch (err) {
      const stopped = stop.aborted;
      const why = stopped ? 'stopped (interrupted)' : describeError(err);
      news({ ...said, state: stopped ? 'stopped' : 'failed', detail: why });
      return { status: stopped ? 'stopped' : 'failed', step: index + 1, why };
    }
  }
  return { status: 'done' };
}

/** Runs `act` with a signal that aborts on the step's timeout or `stop`; rejects at once when either comes. */
async function withTimeout(step: Step, act: (signal: AbortSignal) => Promise<string>, stop: AbortSignal): Promise<string> {
  const timeoutMs = step.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS[step.kind];
  const deadline = new AbortController();
  // A wait has its own timer, saying what did not appear: this one is its backstop.
  const timer = setTimeout(
    () => deadline.abort(new StepTimeoutError(`${describeStep(step)} did not finish within ${formatDuration(timeoutMs)}`)),
    timeoutMs + (step.kind === 'wait' ? WAIT_BACKSTOP_MS : 0),
  );
  const signal = AbortSignal.any([stop, deadline.signal]);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new VconsoleError(String(signal.reason)));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const acting = act(signal);
  // The step's own rejection after an abort is not news: the abort already said why.
  acting.catch(() => undefined);
  try {
    return await Promise.race([acting, aborted]);
  } catch (err) {
    // Stopped: the step's work stops too (no key or byte more, a held key let go, its watcher
    // gone); the script says so once it has, or once STOP_GRACE_MS passed.
    if (signal.aborted) await settledWithin(acting, STOP_GRACE_MS);
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
