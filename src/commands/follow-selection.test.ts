import { afterEach, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../proxy/session-registry.js';
import { resolveTarget } from '../targets/registry.js';
import type { ConsoleTarget } from '../targets/types.js';
import { waitFor } from '../../test/support/wait.js';
import { followSelection } from './follow-selection.js';

const demo = (name: string): ConsoleTarget => resolveTarget(`demo:${name}`, {});

describe('followSelection', () => {
  const stops: (() => void)[] = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));

  function follow(initial: string[], maxAtOnce?: number) {
    const registry = new SessionRegistry();
    const sessions = initial.map((name) => registry.add(demo(name)));
    const state = { answer: initial.map(demo) as ConsoleTarget[] | Error, polls: 0 };
    const notices: string[] = [];
    const marks: [string, boolean][] = [];
    const stop = followSelection({
      flags: { selector: 'app=web' },
      options: {},
      config: { defaults: {}, aliases: {} },
      registry,
      sessions,
      intervalMs: 5,
      select: async () => {
        state.polls++;
        if (state.answer instanceof Error) throw state.answer;
        return state.answer;
      },
      open: (target) => registry.add(target),
      mark: (id, matching) => marks.push([registry.get(id)?.name ?? '?', matching]),
      notice: (text) => notices.push(text),
      maxAtOnce,
    });
    stops.push(stop);
    return { state, notices, marks, registry, stop };
  }

  it('opens what starts matching, marks what stops, unmarks what comes back, and nothing at the baseline', async () => {
    const { state, notices, marks } = follow(['a', 'b']);
    await waitFor(() => state.polls >= 2, 'two polls');
    expect(notices).toEqual([]);
    state.answer = [demo('a'), demo('b'), demo('c')];
    await waitFor(() => notices.length === 1, 'c opened');
    expect(notices).toEqual(['demo:c now matches -l app=web: opening it']);
    state.answer = [demo('b'), demo('c')];
    await waitFor(() => marks.length === 1, 'a marked');
    expect(marks).toEqual([['demo:a', false]]);
    state.answer = [demo('a'), demo('b'), demo('c')];
    await waitFor(() => marks.length === 2, 'a unmarked');
    expect(marks[1]).toEqual(['demo:a', true]);
    expect(notices.slice(1)).toEqual(['demo:a no longer matches -l app=web', 'demo:a matches -l app=web again']);
  });

  it('says a failing question once until one succeeds, and lets go of the registry when stopped', async () => {
    const { state, notices, stop, registry } = follow(['a']);
    state.answer = new Error('connection refused');
    await waitFor(() => state.polls >= 4, 'failing polls');
    expect(notices).toEqual(['--follow: cannot ask which VMs match -l app=web (connection refused); trying again every 1s']);
    state.answer = [demo('a')];
    const before = state.polls;
    await waitFor(() => state.polls >= before + 2, 'a good poll');
    state.answer = new Error('timed out');
    await waitFor(() => notices.length === 2, 'the next failure');
    expect(notices[1]).toMatch(/\(timed out\)/);
    expect(registry.listenerCount('added')).toBe(1);
    stop();
    expect(registry.listenerCount('added')).toBe(0);
    expect(registry.listenerCount('removed')).toBe(0);
  });

  it('says when nothing matches yet', () => {
    const { notices } = follow([]);
    expect(notices).toEqual(['nothing matches -l app=web yet: following it']);
  });

  it('opens no more at once than maxAtOnce: more are said once and left unopened, fewer later open', async () => {
    const { state, notices, registry } = follow(['a'], 2);
    await waitFor(() => state.polls >= 1, 'the baseline');
    state.answer = ['a', 'b', 'c', 'd'].map(demo);
    await waitFor(() => notices.some((n) => n.includes('at once')), 'the notice');
    expect(notices.filter((n) => n.includes('at once'))).toEqual([
      '3 VMs now match -l app=web at once, more than 2: none of them opened (a opens some; --max N or --yes allows more)',
    ]);
    expect(registry.all().map((s) => s.name)).toEqual(['demo:a']);
    state.answer = ['a', 'b', 'c', 'd', 'e'].map(demo);
    await waitFor(() => registry.all().length === 2, 'e opened');
    expect(registry.all().map((s) => s.name)).toEqual(['demo:a', 'demo:e']);
    expect(notices.filter((n) => n.includes('at once'))).toHaveLength(1);
  });
});
