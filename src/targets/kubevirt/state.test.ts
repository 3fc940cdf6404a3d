import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { waitFor } from '../../../test/support/wait.js';
import type { LogLevel } from '../../proxy/types.js';
import { splitTarget } from '../registry.js';
import { createKubevirtProvider } from './provider.js';
import { vmiState } from './state.js';
import type { VmState } from '../types.js';

const NS = 'default';
let fixture: KubevirtFixture;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: ['vm-order', 'vm-expire', 'vm-resume', 'vm-bookmark', 'vm-poll', 'vm-stop', 'other'].map((name) => ({ namespace: NS, name })),
  });
});
afterAll(() => fixture?.close());

interface Following {
  /** Each phase when it changed, as the follower reported it. */
  phases: string[];
  logs: { level: LogLevel; message: string }[];
  done: Promise<void>;
  stop(): Promise<void>;
}

function follow(name: string, pollMs?: number): Following {
  const env = {
    env: { KUBECONFIG: fixture.kubeconfigPath() },
    homeDir: join(fixture.dir, 'no-home'),
    serviceAccountDir: join(fixture.dir, 'no-sa'),
  };
  const target = createKubevirtProvider(() => env).resolve(splitTarget(`${NS}/${name}`), {});
  const controller = new AbortController();
  const following: Following = {
    phases: [],
    logs: [],
    done: Promise.resolve(),
    stop: async () => {
      controller.abort();
      await following.done;
    },
  };
  const onState = (state: VmState) => {
    if (following.phases.at(-1) !== state.phase) following.phases.push(state.phase);
  };
  following.done = target.followState!({
    signal: controller.signal,
    onState,
    log: (level, message) => following.logs.push({ level, message }),
    pollMs,
  });
  return following;
}

const watchRequests = (name: string) =>
  fixture.requests.filter((r) => r.query.watch === 'true' && r.query.fieldSelector === `metadata.name=${name}`);
const listRequests = (name: string) =>
  fixture.requests.filter((r) => r.query.watch === undefined && r.query.fieldSelector === `metadata.name=${name}`);

describe('following a KubeVirt VMI', () => {
  it('maps phase, Paused condition and migration state to the phases the table shows', () => {
    expect(vmiState(undefined)).toEqual({ phase: 'gone' });
    expect(vmiState({ status: { phase: 'Scheduling' } })).toEqual({ phase: 'Starting', detail: 'Scheduling' });
    expect(vmiState({ status: { phase: 'Succeeded' } })).toEqual({ phase: 'Stopped', detail: 'Succeeded' });
    expect(vmiState({ status: { phase: 'Running', conditions: [{ type: 'Paused', status: 'True' }] } })).toEqual({ phase: 'Paused' });
    expect(vmiState({ status: { phase: 'Running', migrationState: { completed: true } } })).toEqual({ phase: 'Running' });
    expect(vmiState({ status: { phase: 'Running', migrationState: { completed: false } } })).toEqual({ phase: 'Migrating' });
    expect(vmiState({ status: { phase: 'Failed' } })).toEqual({ phase: 'Failed' });
  });

  it('sees every change of its VMI in order through one watch, and none of other VMIs', async () => {
    const f = follow('vm-order');
    await waitFor(
      () => f.phases.length === 1 && watchRequests('vm-order').length === 1 && fixture.openWatches() >= 1,
      'the first state and the watch',
    );
    fixture.setPaused(NS, 'vm-order', true);
    await waitFor(() => f.phases.at(-1) === 'Paused', 'Paused');
    fixture.setPaused(NS, 'vm-order', false);
    fixture.setMigrating(NS, 'vm-order', true);
    await waitFor(() => f.phases.at(-1) === 'Migrating', 'Migrating');
    fixture.setMigrating(NS, 'vm-order', false);
    fixture.setPhase(NS, 'other', 'Succeeded');
    fixture.setPhase(NS, 'vm-order', 'Succeeded');
    fixture.removeVmi(NS, 'vm-order');
    fixture.addVmi({ namespace: NS, name: 'vm-order', phase: 'Scheduling' });
    fixture.setPhase(NS, 'vm-order', 'Running');
    await waitFor(() => f.phases.length === 9, 'nine phases');
    expect(f.phases).toEqual(['Running', 'Paused', 'Running', 'Migrating', 'Running', 'Stopped', 'gone', 'Starting', 'Running']);
    expect(listRequests('vm-order')).toHaveLength(1);
    expect(watchRequests('vm-order')[0].query).toMatchObject({
      allowWatchBookmarks: 'true',
      resourceVersion: expect.stringMatching(/^\d+$/),
    });
    await f.stop();
    fixture.setPhase(NS, 'other', 'Running');
  });

  it('resumes a watch the server ended from the last resourceVersion, without listing again', async () => {
    const f = follow('vm-resume');
    await waitFor(() => watchRequests('vm-resume').length === 1 && fixture.openWatches() >= 1, 'the watch');
    fixture.setPhase(NS, 'vm-resume', 'Succeeded');
    await waitFor(() => f.phases.at(-1) === 'Stopped', 'Stopped');
    const seenRv = fixture.resourceVersion();
    fixture.endWatches();
    await waitFor(() => watchRequests('vm-resume').length === 2, 'a second watch');
    expect(watchRequests('vm-resume')[1].query.resourceVersion).toBe(seenRv);
    fixture.setPhase(NS, 'vm-resume', 'Running');
    await waitFor(() => f.phases.at(-1) === 'Running', 'Running');
    expect(listRequests('vm-resume')).toHaveLength(1);
    await f.stop();
  });

  it('lists again after a 410 Expired, and misses no change made meanwhile', async () => {
    const f = follow('vm-expire');
    await waitFor(() => watchRequests('vm-expire').length === 1 && fixture.openWatches() >= 1, 'the watch');
    fixture.endWatches();
    // Changes while no watch is open, then the history that would replay them is compacted.
    fixture.setPhase(NS, 'vm-expire', 'Succeeded');
    fixture.compactHistory();
    await waitFor(() => f.phases.at(-1) === 'Stopped', 'Stopped, from the new list');
    expect(listRequests('vm-expire')).toHaveLength(2);
    // Expired is the ordinary way a watch ends: a new list, not an error.
    expect(f.logs.map((l) => l.message)).toEqual(['VM state: the watch expired (410); listing again']);
    fixture.setPhase(NS, 'vm-expire', 'Running');
    await waitFor(() => f.phases.at(-1) === 'Running', 'Running');
    expect(f.phases).toEqual(['Running', 'Stopped', 'Running']);
    await f.stop();
  });

  it('keeps the resourceVersion of bookmarks, so a compacted history costs no new list', async () => {
    const f = follow('vm-bookmark');
    await waitFor(() => watchRequests('vm-bookmark').length === 1 && fixture.openWatches() >= 1, 'the watch');
    fixture.setPaused(NS, 'other', true);
    fixture.setPaused(NS, 'other', false);
    // The bookmark goes out before the stream ends: the next watch asks from its version,
    // which the compacted history still serves (the listed one it does not).
    expect(fixture.sendBookmarks()).toBe(1);
    const bookmarked = fixture.resourceVersion();
    fixture.compactHistory();
    fixture.endWatches();
    await waitFor(() => watchRequests('vm-bookmark').length === 2, 'a second watch');
    expect(watchRequests('vm-bookmark')[1].query.resourceVersion).toBe(bookmarked);
    await waitFor(() => fixture.openWatches() >= 1, 'the second watch to stay open');
    expect(listRequests('vm-bookmark')).toHaveLength(1);
    await f.stop();
  });

  it('polls, saying so once, when RBAC forbids watching VMIs', async () => {
    fixture.denyVmiVerb('watch');
    const f = follow('vm-poll', 100);
    try {
      await waitFor(() => f.phases.length === 1, 'the first state');
      fixture.setPhase(NS, 'vm-poll', 'Succeeded');
      await waitFor(() => f.phases.at(-1) === 'Stopped', 'Stopped, polled');
      fixture.removeVmi(NS, 'vm-poll');
      await waitFor(() => f.phases.at(-1) === 'gone', 'gone, polled');
      const before = fixture.requests.length;
      await waitFor(() => fixture.requests.length >= before + 3, 'a few more polls');
      const notices = f.logs.filter((l) => l.level === 'warn');
      expect(notices.map((l) => l.message)).toEqual(['VM state: RBAC forbids watching this VM; polling its state every 0.1 s instead']);
    } finally {
      fixture.denyVmiVerb('watch', false);
      await f.stop();
    }
  });

  it('stops its watch, and holds no socket or timer, once aborted', async () => {
    const f = follow('vm-stop');
    await waitFor(() => watchRequests('vm-stop').length === 1, 'the watch');
    await waitFor(() => fixture.openWatches() === 1, 'only this watch open');
    await f.stop();
    await waitFor(() => fixture.openWatches() === 0, 'the watch to close');
  });

  it('watches an API server reached over plain HTTP (kubectl proxy), as kubectl does', async () => {
    const plain = await startKubevirtFixture({ vmis: [{ namespace: NS, name: 'vm-http' }], plainHttp: true });
    const env = {
      env: { KUBECONFIG: plain.kubeconfigPath() },
      homeDir: join(plain.dir, 'no-home'),
      serviceAccountDir: join(plain.dir, 'no-sa'),
    };
    const target = createKubevirtProvider(() => env).resolve(splitTarget(`${NS}/vm-http`), {});
    const controller = new AbortController();
    const phases: string[] = [];
    const done = target.followState!({ signal: controller.signal, onState: (s) => phases.push(s.phase), log: () => undefined });
    try {
      await waitFor(() => plain.openWatches() === 1, 'the watch');
      plain.setPhase(NS, 'vm-http', 'Succeeded');
      await waitFor(() => phases.at(-1) === 'Stopped', 'Stopped');
    } finally {
      controller.abort();
      await done;
      await plain.close();
    }
  });
});
