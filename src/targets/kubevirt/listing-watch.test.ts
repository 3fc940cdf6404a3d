import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { createKubevirtProvider } from './provider.js';
import type { ListScope, ListedChange, ListedVm } from '../types.js';

// list --follow's KubeVirt part against a fixture that watches as kube-apiserver does (its
// cacher): resourceVersions, bookmarks, server-side ends, 410 Expired in the stream.

let fixture: KubevirtFixture;
beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'ns-a', name: 'a1', labels: { app: 'web' } },
      { namespace: 'ns-b', name: 'b1' },
      { namespace: 'ns-c', name: 'c1' },
      // A VMI of its own (no VM): its row is its VMI's alone, whatever order two streams come in.
      { namespace: 'ns-b', name: 'solo', ownedByVm: false },
    ],
    stoppedVms: [{ namespace: 'ns-a', name: 'a-off' }],
  });
});
afterAll(() => fixture?.close());
const following: Followed[] = [];
afterEach(async () => {
  await Promise.all(following.splice(0).map((f) => f.stop()));
  await waitFor(() => fixture.openWatches() === 0, 'no watch left');
});

interface Followed {
  listed: ListedVm[] | undefined;
  /** `TYPE NS/NAME STATE` per change. */
  changes: string[];
  logs: string[];
  stop(): Promise<void>;
}

function follow(scope: ListScope): Followed {
  const env = {
    env: { KUBECONFIG: fixture.kubeconfigPath() },
    homeDir: join(fixture.dir, 'no-home'),
    serviceAccountDir: join(fixture.dir, 'no-sa'),
  };
  const controller = new AbortController();
  const followed: Followed = { listed: undefined, changes: [], logs: [], stop: async () => undefined };
  const done = createKubevirtProvider(() => env).followList!({}, scope, {
    signal: controller.signal,
    onListed: (vms) => (followed.listed = vms),
    onChange: ({ type, vm }: ListedChange) => followed.changes.push(`${type} ${vm.target} ${vm.state}${vm.console ? '' : ' (no console)'}`),
    log: (_level, message) => followed.logs.push(message),
  });
  followed.stop = async () => {
    controller.abort();
    await done;
  };
  following.push(followed);
  return followed;
}

const watches = () => fixture.requests.filter((r) => r.query.watch === 'true');
const lists = () => fixture.requests.filter((r) => r.query.watch === undefined && /virtualmachine(instance)?s$/.test(r.path));
const targets = (vms: ListedVm[] | undefined) => vms?.map((vm) => `${vm.target} ${vm.state}`).sort();

describe('following a KubeVirt listing', () => {
  it('watches each namespace asked once per resource and tells each change once', async () => {
    const before = watches().length;
    const f = follow({ namespaces: ['ns-a', 'ns-b'] });
    await waitFor(() => f.listed !== undefined && fixture.openWatches() === 4, 'the listing and four watches');
    expect(targets(f.listed)).toEqual(['ns-a/a-off Stopped', 'ns-a/a1 Running', 'ns-b/b1 Running', 'ns-b/solo Running']);
    const opened = watches().slice(before);
    expect(opened.map((r) => r.path).sort()).toEqual([
      '/apis/kubevirt.io/v1/namespaces/ns-a/virtualmachineinstances',
      '/apis/kubevirt.io/v1/namespaces/ns-a/virtualmachines',
      '/apis/kubevirt.io/v1/namespaces/ns-b/virtualmachineinstances',
      '/apis/kubevirt.io/v1/namespaces/ns-b/virtualmachines',
    ]);
    expect(opened.every((r) => r.query.allowWatchBookmarks === 'true' && Number(r.query.resourceVersion) > 0)).toBe(true);

    // VMIs of their own (no VM): a VM's row and its VMI's come on two streams, in either order.
    fixture.addVmi({ namespace: 'ns-b', name: 'b2', phase: 'Scheduling', ownedByVm: false });
    fixture.addVmi({ namespace: 'ns-c', name: 'c2', ownedByVm: false });
    fixture.setPhase('ns-b', 'b2', 'Running');
    fixture.setPaused('ns-a', 'a1', true);
    fixture.removeVmi('ns-b', 'b2');
    const ofB2 = () => f.changes.filter((change) => change.includes(' ns-b/b2 '));
    await waitFor(() => ofB2().at(-1)?.startsWith('DELETED ns-b/b2') === true, 'the deletion');
    // c2 is in a namespace not asked; a1's pause (its Paused condition; the phase stays Running) is a change of state.
    await waitFor(() => f.changes.includes('MODIFIED ns-a/a1 Paused'), "a1's pause");
    expect(ofB2()).toEqual(['ADDED ns-b/b2 Scheduling (no console)', 'MODIFIED ns-b/b2 Running', 'DELETED ns-b/b2 Running']);
    expect(f.changes.filter((change) => !change.includes(' ns-b/b2 '))).toEqual(['MODIFIED ns-a/a1 Paused']);
    fixture.setPaused('ns-a', 'a1', false);
    await waitFor(() => f.changes.at(-1) === 'MODIFIED ns-a/a1 Running', "a1's resume");
    fixture.removeVmi('ns-c', 'c2');
    await f.stop();
    await waitFor(() => fixture.openWatches() === 0, 'the watches to close');
    expect(f.logs).toEqual([]);
  });

  it('watches every namespace with one cluster-scoped watch per resource (-A)', async () => {
    const before = watches().length;
    const f = follow({ allNamespaces: true });
    await waitFor(() => f.listed !== undefined && fixture.openWatches() === 2, 'the listing and two watches');
    expect(targets(f.listed)).toEqual(['ns-a/a-off Stopped', 'ns-a/a1 Running', 'ns-b/b1 Running', 'ns-b/solo Running', 'ns-c/c1 Running']);
    expect(
      watches()
        .slice(before)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/apis/kubevirt.io/v1/virtualmachineinstances', '/apis/kubevirt.io/v1/virtualmachines']);
    fixture.startVm('ns-a', 'a-off');
    await waitFor(() => f.changes.includes('MODIFIED ns-a/a-off Running'), 'the start');
    fixture.stopVm('ns-a', 'a-off');
    await waitFor(() => f.changes.at(-1) === 'MODIFIED ns-a/a-off Stopped (no console)', 'the stop');
    await f.stop();
  });

  it('resumes watches the server ended from the last resourceVersion, bookmarks included, without listing again', async () => {
    const f = follow({ namespaces: ['ns-c'] });
    await waitFor(() => f.listed !== undefined && fixture.openWatches() === 2, 'two watches');
    const listed = lists().length;
    const opened = watches().length;
    // Changes elsewhere move the clock; a bookmark carries it; then etcd compacts and the server
    // ends the streams (each read in order: the bookmark before the end). Without the bookmark's
    // resourceVersion the resumed watches would be 410 and list again.
    fixture.addVmi({ namespace: 'ns-b', name: 'elsewhere' });
    fixture.removeVmi('ns-b', 'elsewhere');
    expect(fixture.sendBookmarks()).toBe(2);
    const bookmarked = fixture.resourceVersion();
    fixture.compactHistory();
    expect(fixture.endWatches()).toBe(2);
    await waitFor(() => watches().length === opened + 2 && fixture.openWatches() === 2, 'two resumed watches');
    expect(
      watches()
        .slice(opened)
        .map((r) => r.query.resourceVersion),
    ).toEqual([bookmarked, bookmarked]);
    expect(lists().length).toBe(listed);
    fixture.setPhase('ns-c', 'c1', 'Paused');
    await waitFor(() => f.changes.length === 1, 'the change after the bookmark');
    fixture.setPhase('ns-c', 'c1', 'Running');
    await waitFor(() => f.changes.length === 2, 'the next change');
    expect(f.changes).toEqual(['MODIFIED ns-c/c1 Paused (no console)', 'MODIFIED ns-c/c1 Running']);
    await f.stop();
  });

  it('lists again after 410 Expired and tells what changed meanwhile, once each', async () => {
    const f = follow({ namespaces: ['ns-b'] });
    await waitFor(() => f.listed !== undefined && fixture.openWatches() === 2, 'two watches');
    const listed = lists().length;
    fixture.endWatches();
    // While no watch is open: one VM comes, one goes, one changes; then etcd compacts.
    fixture.addVmi({ namespace: 'ns-b', name: 'new', ownedByVm: false });
    fixture.setPhase('ns-b', 'b1', 'Failed');
    fixture.compactHistory();
    await waitFor(() => f.changes.length >= 2 && fixture.openWatches() === 2, 'the changes, from a new list');
    expect(lists().length).toBe(listed + 2);
    expect(f.logs.some((line) => /expired \(410\); listing again/.test(line))).toBe(true);
    fixture.removeVmi('ns-b', 'new');
    fixture.setPhase('ns-b', 'b1', 'Running');
    await waitFor(() => f.changes.length === 4, 'the later changes');
    // The new list's changes in its order (by name), then the watch's in theirs.
    expect(f.changes).toEqual([
      'MODIFIED ns-b/b1 Failed (no console)',
      'ADDED ns-b/new Running',
      'DELETED ns-b/new Running',
      'MODIFIED ns-b/b1 Running',
    ]);
    await f.stop();
  });

  it('follows a label selector as the API server filters it: a relabelled VM comes and goes', async () => {
    const f = follow({ namespaces: ['ns-a', 'ns-b'], labelSelector: 'app=web' });
    await waitFor(() => f.listed !== undefined && fixture.openWatches() === 4, 'four watches');
    expect(targets(f.listed)).toEqual(['ns-a/a1 Running']);
    fixture.setLabels('ns-b', 'solo', { app: 'web' });
    await waitFor(() => f.changes.length === 1, 'solo matching');
    fixture.setLabels('ns-b', 'solo', {});
    await waitFor(() => f.changes.length === 2, 'solo no longer matching');
    expect(f.changes).toEqual(['ADDED ns-b/solo Running', 'DELETED ns-b/solo Running']);
    await f.stop();
  });
});
