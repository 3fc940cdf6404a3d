// Issue 41 item 5 against the real programs: 5000 VMIs across 50 namespaces in etcd, created through
// kube-apiserver (no QEMU: listing needs only the objects), and `vconsole list -A` reading them all in
// pages, `list --follow` watching them. A counting proxy in front of kube-apiserver (plain HTTP in,
// TLS out, as `kubectl proxy` is reached) records each request's path and query and the watches
// open through it: the paging and the watches are what the real API server was asked.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PAGE_SIZE } from '../../src/targets/kubevirt/limits.js';
import { startControlPlane, type ControlPlane } from './support/kube-control-plane.js';
import { requireKubePrograms } from './support/kube-programs.js';
import { installKubeVirtCrds } from './support/kubevirt-control-plane.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';
import { waitFor } from '../support/wait.js';

const tools = requireTools(['openssl']);
const kube = requireKubePrograms(['etcd', 'kubeApiserver', 'kubevirtCrds']);
const gate = { skip: tools.skip ?? kube.skip };
const NAMESPACES = 50;
const PER_NAMESPACE = 100;
/** VMIs created at once: enough to fill the API server, few enough for a shared 2-core machine. */
const CREATING_AT_ONCE = 16;
const SCALE_TIMEOUT_MS = 15 * 60_000;

const lab = new ProcessLab();
let plane: ControlPlane;
let proxy: http.Server;
const seen: URL[] = [];
/** Watch requests whose answer is still streaming, by URL. */
const openWatches = new Set<URL>();

/** Runs `work` over `items`, at most `atOnce` at a time. */
async function inBatches<T>(items: T[], atOnce: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function vmi(namespace: string, name: string): unknown {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace },
    spec: { domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } },
    status: { phase: 'Running', nodeName: 'e2e-node' },
  };
}

/** kube-apiserver behind a plain-HTTP proxy that records what it is asked; the admin certificate goes on every request. */
async function startCountingProxy(): Promise<string> {
  const ca = readFileSync(plane.ca.cert);
  const cert = readFileSync(plane.adminCert.cert);
  const key = readFileSync(plane.adminCert.key);
  proxy = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', plane.server);
    seen.push(url);
    if (url.searchParams.get('watch') === 'true') {
      openWatches.add(url);
      res.once('close', () => openWatches.delete(url));
    }
    const upstream = https.request(url, { method: req.method, headers: { ...req.headers, host: url.host }, ca, cert, key }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  proxy.listen(0, '127.0.0.1');
  await new Promise((resolve) => proxy.once('listening', resolve));
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'counted', cluster: { server: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` } }],
    users: [{ name: 'through-proxy', user: {} }],
    contexts: [{ name: 'counted', context: { cluster: 'counted', user: 'through-proxy', namespace: 'default' } }],
    'current-context': 'counted',
  };
  const path = join(plane.dir, 'kubeconfig-counted');
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

describe.skipIf(gate.skip)(gatedTitle('5000 VMIs in 50 namespaces of a real kube-apiserver and etcd', gate), () => {
  let kubeconfig: string;
  beforeAll(async () => {
    plane = await startControlPlane(lab, kube.programs);
    await installKubeVirtCrds(plane, kube.programs);
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `scale-${i}`);
    await inBatches(namespaces, CREATING_AT_ONCE, (name) =>
      plane.admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    );
    const vmis = Array.from({ length: NAMESPACES * PER_NAMESPACE }, (_, i) => ({ namespace: namespaces[i % NAMESPACES], name: `vm-${i}` }));
    await inBatches(vmis, CREATING_AT_ONCE, ({ namespace, name }) =>
      plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${namespace}/virtualmachineinstances`, vmi(namespace, name)),
    );
    kubeconfig = await startCountingProxy();
  }, SCALE_TIMEOUT_MS);
  afterAll(async () => {
    proxy?.close();
    await lab.cleanup();
  }, E2E_SETUP_TIMEOUT_MS);

  it(
    'list -A returns all 5000, read in pages of LIST_PAGE_SIZE with continue tokens',
    async () => {
      const result = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'list', '--provider', 'kubevirt', '-A', '--kubeconfig', kubeconfig, '--json'],
        {
          timeoutMs: 120_000,
          env: vconsoleEnv({ HOME: plane.dir }),
        },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const listed = JSON.parse(result.stdout) as { target: string }[];
      expect(new Set(listed.map((vm) => vm.target)).size).toBe(NAMESPACES * PER_NAMESPACE);
      // The wire the fixture plays (test/fixtures/kubevirt-paging.ts), as kube-apiserver answers it.
      const first = await plane.admin.ok<{ items: unknown[]; metadata: { continue?: string; remainingItemCount?: number } }>(
        'GET',
        `/apis/kubevirt.io/v1/virtualmachineinstances?limit=${LIST_PAGE_SIZE}`,
      );
      expect(first.items).toHaveLength(LIST_PAGE_SIZE);
      expect(first.metadata.continue).toBeTruthy();
      expect(first.metadata.remainingItemCount).toBe(NAMESPACES * PER_NAMESPACE - LIST_PAGE_SIZE);
      const pages = seen.filter((url) => url.pathname === '/apis/kubevirt.io/v1/virtualmachineinstances');
      expect(pages).toHaveLength(Math.ceil((NAMESPACES * PER_NAMESPACE) / LIST_PAGE_SIZE));
      expect(pages.every((url) => url.searchParams.get('limit') === String(LIST_PAGE_SIZE))).toBe(true);
      expect(pages.slice(1).every((url) => url.searchParams.get('continue'))).toBe(true);
    },
    SCALE_TIMEOUT_MS,
  );

  /** `vconsole list --follow ARGS` through the counting proxy, until the test stops it. */
  function followList(args: string[]) {
    const watchesBefore = seen.length;
    const running = lab.start(
      'vconsole list --follow',
      process.execPath,
      [VCONSOLE_BIN, 'list', '--provider', 'kubevirt', '--follow', '--kubeconfig', kubeconfig, ...args],
      { env: vconsoleEnv({ HOME: plane.dir }) },
    );
    const watches = () => seen.slice(watchesBefore).filter((url) => url.searchParams.get('watch') === 'true');
    return { running, watches };
  }

  /** A VMI created in `namespace`, seen ADDED by `running`, then deleted and seen DELETED. */
  async function createAndDelete(running: { stdout(): string }, namespace: string, name: string): Promise<void> {
    await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${namespace}/virtualmachineinstances`, vmi(namespace, name));
    const added = new RegExp(`ADDED +${namespace}/${name} +Running +yes\n`);
    await waitFor(() => added.test(running.stdout()), `${name} ADDED`, 60_000);
    await plane.admin.ok('DELETE', `/apis/kubevirt.io/v1/namespaces/${namespace}/virtualmachineinstances/${name}`);
    await waitFor(() => new RegExp(`DELETED +${namespace}/${name} +`).test(running.stdout()), `${name} DELETED`, 60_000);
  }

  it(
    'list -A --follow watches all 50 namespaces through one cluster-scoped watch per resource, and sees a VMI come and go',
    async () => {
      const { running, watches } = followList(['-A']);
      await waitFor(() => watches().length === 2 && openWatches.size === 2, 'two watches', 120_000);
      // As `kubectl get vmi -A -w`: the collection of every namespace, from the list's resourceVersion, with bookmarks.
      expect(
        watches()
          .map((url) => url.pathname)
          .sort(),
      ).toEqual(['/apis/kubevirt.io/v1/virtualmachineinstances', '/apis/kubevirt.io/v1/virtualmachines']);
      expect(watches().every((url) => url.searchParams.get('allowWatchBookmarks') === 'true')).toBe(true);
      expect(watches().every((url) => Number(url.searchParams.get('resourceVersion')) > 0)).toBe(true);
      await createAndDelete(running, 'scale-17', 'followed-1');
      expect(watches()).toHaveLength(2);
      expect(await running.signalAndWait('SIGTERM', 20_000)).toEqual({ code: 0, signal: null });
      expect(running.stderr()).toBe('');
    },
    SCALE_TIMEOUT_MS,
  );

  it(
    'list --follow with three namespaces opens one watch per namespace and resource, six in all',
    async () => {
      const namespaces = ['scale-3', 'scale-4', 'scale-5'];
      const { running, watches } = followList(namespaces.flatMap((ns) => ['-n', ns]));
      await waitFor(() => watches().length === 6 && openWatches.size === 6, 'six watches', 120_000);
      const expected = namespaces.flatMap((ns) =>
        ['virtualmachineinstances', 'virtualmachines'].map((r) => `/apis/kubevirt.io/v1/namespaces/${ns}/${r}`),
      );
      expect(
        watches()
          .map((url) => url.pathname)
          .sort(),
      ).toEqual(expected.sort());
      await createAndDelete(running, 'scale-4', 'followed-2');
      expect(await running.signalAndWait('SIGTERM', 20_000)).toEqual({ code: 0, signal: null });
    },
    SCALE_TIMEOUT_MS,
  );
});
