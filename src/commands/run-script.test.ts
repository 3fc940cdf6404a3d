import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StepReporter } from './run-report.js';
import { playScript, type PerformStep, type StepNews } from './run-script.js';
import { parseStepFile } from './run-steps.js';

const steps = parseStepFile('s.yaml', '- type: "secret\\n"\n- wait: "login:"\n  timeout: 50ms\n- sleep: 1s\n');

/** A promise and the function that settles it. */
function latch<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves once `signal` aborts: a step that gives up only when told to. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(new Error('gave up'))));

function collected() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { out, text: () => text };
}

describe('playing a script on several consoles', () => {
  it('plays the targets in parallel; one failing or timing out does not stop the others; lines never show typed text', async () => {
    const bothTyping = [latch(), latch()];
    const perform: PerformStep = async (target, step, signal) => {
      if (step.kind === 'type') {
        bothTyping[target].resolve();
        // Each target's first step waits for the other's to begin: they run at once.
        await bothTyping[1 - target].promise;
        return 'typed';
      }
      if (step.kind === 'wait') return target === 0 ? untilAborted(signal) : 'saw login:';
      if (target === 1) throw new Error('the console went away');
      return 'slept';
    };
    const news: StepNews[] = [];
    const log = collected();
    const reporter = new StepReporter(['vm-a', 'vm-b'], log.out);
    const outcomes = await playScript(2, steps, perform, (n) => (news.push(n), reporter.news(n)), new AbortController().signal);
    expect(outcomes).toEqual([
      { status: 'failed', step: 2, why: 'wait /login:/ did not finish within 50ms' },
      { status: 'failed', step: 3, why: 'the console went away' },
    ]);
    expect(reporter.finish(outcomes, steps)).toBe(1);
    const lines = log.text().split('\n');
    expect(lines).toContain('vm-a step 1/3: type (7 chars) ok');
    expect(lines).toContain('vm-b step 2/3: wait /login:/ ok');
    expect(lines).toContain('vconsole: vm-a: failed at step 2/3 (wait, line 2): wait /login:/ did not finish within 50ms');
    expect(lines).toContain('vconsole: vm-b: failed at step 3/3 (sleep, line 4): the console went away');
    expect(log.text()).not.toContain('secret');
    expect(news.filter((n) => n.target === 0).map((n) => n.step)).toEqual([1, 1, 2, 2]);
  });

  it('exits 0 only when every target finished all steps', async () => {
    const log = collected();
    const reporter = new StepReporter(['vm-a', 'vm-b'], log.out);
    const outcomes = await playScript(
      2,
      steps,
      async () => 'ok',
      (n) => reporter.news(n),
      new AbortController().signal,
    );
    expect(outcomes).toEqual([{ status: 'done' }, { status: 'done' }]);
    expect(reporter.finish(outcomes, steps)).toBe(0);
  });

  it('an abort (Ctrl+C) stops every target at once and says where each was', async () => {
    const stop = new AbortController();
    const started = [latch(), latch()];
    const perform: PerformStep = async (target, step, signal) => {
      // vm-a hangs in its first step, vm-b in its third; neither gives up unless told.
      if ((target === 0 && step.kind === 'type') || (target === 1 && step.kind === 'sleep')) {
        started[target].resolve();
        return new Promise<string>(() => undefined);
      }
      return step.kind === 'sleep' ? untilAborted(signal) : 'done';
    };
    const log = collected();
    const reporter = new StepReporter(['vm-a', 'vm-b'], log.out);
    const playing = playScript(2, steps, perform, (n) => reporter.news(n), stop.signal);
    await Promise.all(started.map((s) => s.promise));
    stop.abort(new Error('interrupted'));
    const outcomes = await playing;
    expect(outcomes).toEqual([
      { status: 'stopped', step: 1, why: 'stopped (interrupted)' },
      { status: 'stopped', step: 3, why: 'stopped (interrupted)' },
    ]);
    expect(reporter.finish(outcomes, steps)).toBe(130);
    expect(log.text()).toContain('vm-a: stopped at step 1/3 (type, line 1)\nvm-b: stopped at step 3/3 (sleep, line 4)\n');
  });

  it('on a terminal draws one row per console, redrawn in place', async () => {
    const log = collected();
    const out = Object.assign(log.out, { isTTY: true });
    const reporter = new StepReporter(['vm-a', 'b'], out);
    await playScript(
      2,
      steps.slice(0, 1),
      async () => 'ok',
      (n) => reporter.news(n),
      new AbortController().signal,
    );
    const frames = log.text().split('\x1b[2A');
    expect(frames.length).toBeGreaterThan(1);
    expect(frames.at(-1)).toContain('vm-a  step 1/1: type (7 chars) ok');
    expect(frames.at(-1)).toContain('b     step 1/1: type (7 chars) ok');
  });
});
