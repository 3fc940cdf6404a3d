import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createKubevirtProvider } from '../../targets/kubevirt/provider.js';
import { createOpenStackProvider } from '../../targets/openstack/provider.js';
import type { ConsoleProvider } from '../../targets/types.js';
import type { ProviderPlace } from '../../tui/state/console-store-types.js';
import { PlaceTeller } from './places.js';

// The TUI's header names where the providers in use point: the kube context and namespace,
// the OpenStack cloud and region, read from the same configuration the targets are opened with.

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: lab
contexts:
  - name: lab
    context: { cluster: lab, user: ada, namespace: web }
  - name: prod
    context: { cluster: lab, user: ada }
clusters:
  - name: lab
    cluster: { server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true }
users:
  - name: ada
    user: { token: not-a-secret }
`;
const CLOUDS = `
clouds:
  devstack:
    auth: { auth_url: 'https://keystone.example:5000/v3', username: ada, password: pw, project_name: demo }
    region_name: RegionOne
`;

function providers(): ConsoleProvider[] {
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-places-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, KUBECONFIG);
  const kubevirt = createKubevirtProvider(() => ({ env: { KUBECONFIG: kubeconfig }, homeDir: dir, serviceAccountDir: join(dir, 'none') }));
  const files: Record<string, string> = { '/home/ada/.config/openstack/clouds.yaml': CLOUDS };
  const openstack = createOpenStackProvider(() => ({ env: {}, readFile: (f) => files[f], homeDir: '/home/ada', cwd: '/nowhere' }));
  return [kubevirt, openstack];
}

async function told(options: Parameters<ConsoleProvider['resolve']>[1], ids: string[][]): Promise<readonly ProviderPlace[]> {
  const show = vi.fn<(places: readonly ProviderPlace[]) => void>();
  const teller = new PlaceTeller(options, show, providers());
  for (const batch of ids) teller.note(batch);
  await vi.waitFor(() => expect(show.mock.calls.at(-1)?.[0]).toHaveLength(new Set(ids.flat()).size));
  return show.mock.calls.at(-1)![0];
}

describe('where the header says the providers point', () => {
  it('names the kube context and its namespace, and the cloud and its region, in the order the targets came', async () => {
    const places = await told({}, [['openstack', 'kubevirt', 'openstack'], ['kubevirt']]);
    expect(places).toEqual([
      {
        provider: 'openstack',
        facts: [
          { label: 'cloud', value: 'devstack' },
          { label: 'region', value: 'RegionOne' },
        ],
      },
      {
        provider: 'kubevirt',
        facts: [
          { label: 'context', value: 'lab' },
          { label: 'namespace', value: 'web' },
        ],
      },
    ]);
  });

  it('follows --context and -n, as the targets do', async () => {
    const [kubevirt] = await told({ context: 'prod' }, [['kubevirt']]);
    expect(kubevirt.facts).toEqual([
      { label: 'context', value: 'prod' },
      { label: 'namespace', value: 'default' },
    ]);
    const [named] = await told({ namespace: 'db' }, [['kubevirt']]);
    expect(named.facts).toEqual([
      { label: 'context', value: 'lab' },
      { label: 'namespace', value: 'db' },
    ]);
  });

  it('asks each provider once, and leaves out one whose configuration cannot be read', async () => {
    const describePlace = vi.fn(() => Promise.resolve([{ label: 'cloud', value: 'x' }]));
    const broken = { ...providers()[1], id: 'broken', describePlace: () => Promise.reject(new Error('no clouds.yaml')) };
    const counted = { ...providers()[1], id: 'counted', describePlace };
    const show = vi.fn<(places: readonly ProviderPlace[]) => void>();
    const teller = new PlaceTeller({}, show, [broken, counted]);
    teller.note(['broken', 'counted', 'demo']);
    teller.note(['counted']);
    await vi.waitFor(() => expect(show).toHaveBeenCalled());
    expect(describePlace).toHaveBeenCalledTimes(1);
    expect(show.mock.calls.at(-1)![0]).toEqual([{ provider: 'counted', facts: [{ label: 'cloud', value: 'x' }] }]);
  });

  it('--via HOST: the place is the bastion, and no provider of this machine is asked', async () => {
    const show = vi.fn<(places: readonly ProviderPlace[]) => void>();
    const teller = new PlaceTeller({}, show, providers(), 'ops@bastion');
    teller.note(['kubevirt', 'openstack']);
    teller.note(['kubevirt']);
    expect(show.mock.calls).toEqual([[[{ provider: 'via', facts: [{ label: '', value: 'ops@bastion' }] }]]]);
  });
});
