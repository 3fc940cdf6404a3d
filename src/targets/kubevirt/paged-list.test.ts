import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type FixtureVmi, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import type { KubeEnvironment } from './kubernetes-api.js';
import { loadKubeAccess } from './kubernetes-api.js';
import { LIST_PAGE_SIZE } from './limits.js';
import { listAllPages } from './paged-list.js';
import { createKubevirtProvider } from './provider.js';

const NAMESPACES = 50;
const PER_NAMESPACE = 100;

/** 5000 VMIs across 50 namespaces, as issue 41 asks `list -A` to page through. */
function manyVmis(): FixtureVmi[] {
  return Array.from({ length: NAMESPACES * PER_NAMESPACE }, (_, i) => ({
    namespace: `ns-${String(i % NAMESPACES).padStart(2, '0')}`,
    name: `vm-${String(i).padStart(4, '0')}`,
    labels: { tier: i % 2 ? 'odd' : 'even' },
  }));
}

let fixture: KubevirtFixture;
let compactOnContinue = false;
let environment: KubeEnvironment;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: manyVmis(),
    watchHistoryLimit: 10,
    beforeList: (query) => {
      if (compactOnContinue && query.continue) {
        compactOnContinue = false;
        fixture.compactHistory();
      }
    },
  });
  environment = {
    env: { KUBECONFIG: fixture.kubeconfigPath() },
    homeDir: join(fixture.dir, 'no-home'),
    serviceAccountDir: join(fixture.dir, 'no-sa'),
  };
});
afterAll(() => fixture?.close());

function listRequestsSince(before: number, resource: string) {
  return fixture.requests.slice(before).filter((r) => r.path === `/apis/kubevirt.io/v1/${resource}`);
}

describe('list -A of 5000 VMIs across 50 namespaces', () => {
  it('reads VMIs and VMs in pages of LIST_PAGE_SIZE, each going on from the last continue token', async () => {
    const before = fixture.requests.length;
    const listed = await createKubevirtProvider(() => environment).list!({}, { allNamespaces: true });
    expect(listed).toHaveLength(NAMESPACES * PER_NAMESPACE);
    expect(new Set(listed.map((vm) => vm.target)).size).toBe(NAMESPACES * PER_NAMESPACE);
    for (const resource of ['virtualmachineinstances', 'virtualmachines']) {
      const pages = listRequestsSince(before, resource);
      expect(pages).toHaveLength(Math.ceil((NAMESPACES * PER_NAMESPACE) / LIST_PAGE_SIZE));
      expect(pages.every((r) => r.query.limit === String(LIST_PAGE_SIZE))).toBe(true);
      expect(pages.slice(1).every((r) => r.query.continue)).toBe(true);
    }
  });

  it('keeps the label selector on every page', async () => {
    const before = fixture.requests.length;
    const listed = await createKubevirtProvider(() => environment).list!({}, { allNamespaces: true, labelSelector: 'tier=odd' });
    expect(listed).toHaveLength((NAMESPACES * PER_NAMESPACE) / 2);
    const pages = listRequestsSince(before, 'virtualmachineinstances');
    expect(pages).toHaveLength(Math.ceil((NAMESPACES * PER_NAMESPACE) / 2 / LIST_PAGE_SIZE));
    expect(pages.every((r) => r.query.labelSelector === 'tier=odd')).toBe(true);
  });

  it('lists again in one request when a continue token expired (410 Expired), as client-go pager does', async () => {
    const access = await loadKubeAccess({}, environment);
    const before = fixture.requests.length;
    compactOnContinue = true;
    const { items } = await listAllPages<object>(access, '/apis/kubevirt.io/v1/virtualmachineinstances', undefined, 1000);
    expect(items).toHaveLength(NAMESPACES * PER_NAMESPACE);
    const asked = listRequestsSince(before, 'virtualmachineinstances');
    expect(asked.map((r) => r.status)).toEqual([200, 410, 200]);
    expect(asked[2].query).toEqual({});
  });
});
