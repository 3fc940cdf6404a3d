import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { SharedSerialSource } from '../../serial/shared-serial.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { demoProvider } from '../../targets/demo/provider.js';
import { resolveTarget, splitTarget } from '../../targets/index.js';
import { createKubevirtProvider } from '../../targets/kubevirt/provider.js';
import type { ConsoleProvider, ConsoleTarget, VmState } from '../../targets/types.js';
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

describe('a VM off at open', () => {
  /** A VM whose state is told by the test; its console refuses until the VM runs. */
  function switchableVm(name: string) {
    let tell: ((state: VmState) => void) | undefined;
    let running = false;
    const target: ConsoleTarget = {
      input: name,
      name,
      provider: 'lab',
      facts: { consoleType: 'vnc' },
      check: () => (running ? Promise.resolve() : Promise.reject(new Error(`${name} is not running`))),
      dial: () => Promise.reject(new Error('not dialled here')),
      followState: ({ signal, onState }) => {
        tell = onState;
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
    return {
      target,
      start: () => {
        running = true;
        tell?.({ phase: 'Running', detail: 'running' });
      },
      followed: () => tell !== undefined,
    };
  }

  it('is started when the first reading already finds it running (started before the follow began)', async () => {
    const registry = new SessionRegistry();
    const actions: string[] = [];
    const followers = new VmStateFollowers(
      {
        show: () => undefined,
        runsAgain: async (session, action) => {
          actions.push(action);
          await session.start({ host: '127.0.0.1', port: 0 });
        },
      },
      registry,
    );
    const vm = switchableVm('off-at-open');
    const session = registry.add(vm.target);
    await expect(session.start({ host: '127.0.0.1', port: 0 })).rejects.toThrow(/not running/);
    // `virsh start` between the failed pre-flight and the follow's first reading.
    followers.follow(session);
    await waitFor(vm.followed, 'the follow to begin');
    vm.start();
    await waitFor(() => session.snapshot().state === 'listening', 'the session to start');
    expect(actions).toEqual(['start']);
    followers.stopAll();
    await registry.closeAll();
  });

  it('is not started again when the first reading finds it running and its session is fine', async () => {
    const registry = new SessionRegistry();
    const actions: string[] = [];
    const followers = new VmStateFollowers({ show: () => undefined, runsAgain: async (_s, action) => void actions.push(action) }, registry);
    const vm = switchableVm('running');
    vm.start();
    const session = registry.add(vm.target);
    await session.start({ host: '127.0.0.1', port: 0 });
    followers.follow(session);
    await waitFor(vm.followed, 'the follow to begin');
    vm.start();
    expect(actions).toEqual([]);
    followers.stopAll();
    await registry.closeAll();
  });
});

describe("one VM's consoles", () => {
  it("log each change of the VM's state once, not once per console", async () => {
    const registry = new SessionRegistry();
    const logged: string[] = [];
    registry.on('log', (entry) => logged.push(`${entry.name}: ${entry.message}`));
    const tellers: ((state: VmState) => void)[] = [];
    const lab: ConsoleProvider = {
      id: 'lab',
      schemes: ['lab'],
      consoleTypes: ['vnc', 'serial'],
      syntax: [],
      resolve: (spec, options) => ({
        input: spec.raw,
        name: `lab:${spec.rest}`,
        provider: 'lab',
        facts: { consoleType: options.consoleType === 'serial' ? 'serial' : 'vnc' },
        dial: () => Promise.reject(new Error('not dialled here')),
        followState: ({ signal, onState }) => {
          tellers.push(onState);
          return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        },
      }),
    };
    const followers = new VmStateFollowers({ show: () => undefined, runsAgain: () => Promise.resolve() }, registry);
    const screen = registry.add(resolveTarget('lab:web1', {}, 'lab', [lab]));
    const serial = registry.add(resolveTarget('lab:web1#serial', {}, 'lab', [lab]));
    expect([screen.name, serial.name]).toEqual(['lab:web1', 'lab:web1#serial']);
    followers.follow(screen);
    followers.follow(serial);
    await waitFor(() => tellers.length === 2, 'both follows to begin');
    for (const phase of ['Stopped', 'Running'] as const) tellers.forEach((tell) => tell({ phase }));
    expect(logged.filter((line) => line.includes(': VM '))).toEqual(['lab:web1: VM Stopped', 'lab:web1: VM Running']);
    followers.stopAll();
    await registry.closeAll();
  });
});
