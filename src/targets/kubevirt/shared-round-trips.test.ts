import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { splitTarget } from '../registry.js';
import type { KubeEnvironment } from './kubernetes-api.js';
import { CLUSTER_ROUND_TRIPS_AT_ONCE } from './limits.js';
import { createKubevirtProvider } from './provider.js';

const NAMESPACES = 4;
const VMS = 200;
const names = Array.from({ length: VMS }, (_, i) => ({ namespace: `team-${i % NAMESPACES}`, name: `vm-${i}` }));

let fixture: KubevirtFixture;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: names,
    // Holds each VMI GET a moment, so pre-flights that are not taken in turns pile up here.
    beforeVmiGet: async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await sleep(5);
      inFlight--;
    },
  });
});
afterAll(() => fixture?.close());

function environment(token?: string): KubeEnvironment {
  return {
    env: { KUBECONFIG: fixture.kubeconfigPath({ token, fileName: token ? 'viewer.yaml' : undefined }) },
    homeDir: join(fixture.dir, 'no-home'),
    serviceAccountDir: join(fixture.dir, 'no-sa'),
  };
}

function reviewsSince(before: number) {
  return fixture.requests.slice(before).filter((r) => r.path === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews');
}

describe('open -l of 200 VMs in 4 namespaces', () => {
  it('asks one access review per namespace and subresource, and takes pre-flights in bounded turns', async () => {
    const env = environment();
    const provider = createKubevirtProvider(() => env);
    const before = fixture.requests.length;
    const targets = names.map(({ namespace, name }) => provider.resolve(splitTarget(`${namespace}/${name}`), {}));
    await Promise.all(targets.map((t) => t.check!(AbortSignal.timeout(60_000))));
    expect(reviewsSince(before)).toHaveLength(NAMESPACES);
    expect(mostInFlight).toBeGreaterThan(1);
    expect(mostInFlight).toBeLessThanOrEqual(CLUSTER_ROUND_TRIPS_AT_ONCE);
  });

  it('still refuses each VM when the namespace-wide review says no (a role that names VMs is asked per VM)', async () => {
    const env = environment(fixture.forbiddenToken);
    const provider = createKubevirtProvider(() => env);
    const before = fixture.requests.length;
    const checks = names.slice(0, 8).map(({ namespace, name }) => provider.resolve(splitTarget(`${namespace}/${name}`), {}));
    const results = await Promise.allSettled(checks.map((t) => t.check!(AbortSignal.timeout(60_000))));
    expect(
      results.every((r) => r.status === 'rejected' && /forbidden: you may not get virtualmachineinstances\/vnc/.test(String(r.reason))),
    ).toBe(true);
    expect(reviewsSince(before)).toHaveLength(NAMESPACES + 8);
  });
});
