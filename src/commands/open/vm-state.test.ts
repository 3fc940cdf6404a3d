import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { SharedSerialSource } from '../../serial/shared-serial.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { demoProvider } from '../../targets/demo/provider.js';
import { splitTarget } from '../../targets/index.js';
import { createKubevirtProvider } from '../../targets/kubevirt/provider.js';
import type { ConsoleTarget, VmState } from '../../targets/types.js';
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
    const followers = new VmStateFollowers({ show: () => undefined, runsAgain: () => Promise.resolve() }, registry);
    const asked: string[] = [];
    const vm = (name: string): ConsoleTarget => ({
      input: name,
      name,
      provider: 'lab',
      facts: { consoleType: 'vnc' },
      dial: () => Promise.reject(new Error('not dialled here')),
      followState: ({ signal }) => {
        asked.push(name);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
    followers.follow(registry.add(vm('before')));
    followers.stopAll();
    followers.follow(registry.add(vm('after')));
    expect(asked).toEqual(['before']);
    await registry.closeAll();
  });
});
