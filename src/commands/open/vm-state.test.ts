import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { SharedSerialSource } from '../../serial/shared-serial.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { demoProvider } from '../../targets/demo/provider.js';
import { splitTarget } from '../../targets/index.js';
import { createKubevirtProvider } from '../../targets/kubevirt/provider.js';
import type { VmState } from '../../targets/types.js';
import { VmStateFollowers, followableTarget } from './vm-state.js';

let fixture: KubevirtFixture;
beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'default', name: 'vm-b' },
    ],
  });
});
afterAll(() => fixture?.close());

function kubevirtTarget(name: string) {
  const env = {
    env: { KUBECONFIG: fixture.kubeconfigPath() },
    homeDir: join(fixture.dir, 'no-home'),
    serviceAccountDir: join(fixture.dir, 'no-sa'),
  };
  return createKubevirtProvider(() => env).resolve(splitTarget(name), {});
}

describe('VM state followers', () => {
  it('follow KubeVirt targets under the sharing wrappers, and not demo consoles', () => {
    expect(followableTarget(new SharedSerialSource(kubevirtTarget('vm-a')))).toBeDefined();
    expect(followableTarget(demoProvider.resolve(splitTarget('demo:vm-a'), {}))).toBeUndefined();
  });

  it("show each session's phase, and end the watch when the session is removed and at stopAll", async () => {
    const registry = new SessionRegistry();
    const shown: [number, VmState['phase']][] = [];
    const followers = new VmStateFollowers(
      { show: (id, state) => shown.push([id, state.phase]), runsAgain: () => Promise.resolve() },
      registry,
    );
    const a = registry.add(kubevirtTarget('vm-a'));
    const b = registry.add(kubevirtTarget('vm-b'));
    const demo = registry.add(demoProvider.resolve(splitTarget('demo:vm-z'), {}));
    [a, b, demo].forEach((s) => followers.follow(s));
    followers.follow(a);
    await waitFor(() => fixture.openWatches() === 2, 'one watch per VM');
    expect(shown.sort()).toEqual([
      [a.id, 'Running'],
      [b.id, 'Running'],
    ]);
    await registry.remove(a.id);
    await waitFor(() => fixture.openWatches() === 1, "the removed session's watch to end");
    followers.stopAll();
    await waitFor(() => fixture.openWatches() === 0, 'every watch to end');
    await registry.closeAll();
  });

  it('start no watch once stopped: open giving up must be able to exit', async () => {
    const registry = new SessionRegistry();
    const shown: number[] = [];
    const stopped = new VmStateFollowers({ show: (id) => shown.push(id), runsAgain: () => Promise.resolve() }, registry);
    const running = new VmStateFollowers({ show: (id) => shown.push(id), runsAgain: () => Promise.resolve() }, registry);
    stopped.stopAll();
    const late = registry.add(kubevirtTarget('vm-a'));
    const live = registry.add(kubevirtTarget('vm-b'));
    stopped.follow(late);
    running.follow(live);
    // By the time the live follow has its first state, a late one would have had its watch too.
    await waitFor(() => shown.includes(live.id), 'the live follow to see its VM');
    expect(fixture.openWatches()).toBe(1);
    expect(shown).toEqual([live.id]);
    running.stopAll();
    await waitFor(() => fixture.openWatches() === 0, 'every watch to end');
    await registry.closeAll();
  });
});
