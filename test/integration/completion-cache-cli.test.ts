// A Tab answers from the completion cache and never waits for an API (issue 40): counted at the
// KubeVirt fixture, a Tab with a fresh cache asks nothing; a first Tab answers the names it has
// while a cluster that never answers keeps its refresher waiting; the refresher writes entries
// keyed by context and namespace with no secret in them, one refresh per stale entry however
// many Tabs ask, and ends by its own bound. No timer in here: work is counted, conditions awaited.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { VCONSOLE_BIN } from '../support/cli.js';
import { childWorkMeter } from '../support/cpu-time.js';
import { cacheEntries, completionCacheIn, isRunning, refreshLocks, refresherPids, refreshesDone } from '../support/completion-cache.js';
import { waitFor } from '../support/wait.js';

const run = promisify(execFile);

let home: string;
let cache: string;
let fixture: KubevirtFixture;
/** A kubeconfig with the fixture's context and `other`, whose namespace is prod. */
let kubeconfig: string;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'prod', name: 'db-1' },
    ],
  });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-completion-cache-'));
  cache = completionCacheIn(home);
  const config = YAML.parse(fs.readFileSync(fixture.kubeconfigPath(), 'utf8')) as {
    contexts: { name: string; context: Record<string, string> }[];
  };
  config.contexts.push({ name: 'other', context: { ...config.contexts[0].context, namespace: 'prod' } });
  kubeconfig = path.join(home, 'two-contexts.kubeconfig');
  fs.writeFileSync(kubeconfig, YAML.stringify(config), { mode: 0o600 });
});
afterAll(async () => {
  await fixture?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  KUBECONFIG: kubeconfig,
  OS_PASSWORD: 'os-password-never-cached',
  ...extra,
});

/** `vconsole complete -- WORDS` as a completion script asks it: the names offered (directive line dropped). */
async function tab(words: string[], extra: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const { stdout } = await run(process.execPath, [VCONSOLE_BIN, 'complete', '--', ...words], { env: env(extra) });
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith(':'))
    .map((line) => line.split('\t')[0]);
}

/** How many requests reached the fixture so far. */
const requests = () => fixture.requests.length;

describe('completion from the cache', () => {
  let oneRefresh = 0;

  it('answers a warm Tab from the cache without a request to the API; the first Tab answered what it had', async () => {
    const before = requests();
    const first = await tab(['open', '']);
    expect(first).toEqual(expect.arrayContaining(['demo:vm-a', 'demo:vm-b']));
    expect(first).not.toContain('default/vm-a');
    await refreshesDone(home);
    oneRefresh = requests() - before;
    const asked = requests();
    expect(await tab(['open', ''])).toEqual(expect.arrayContaining(['default/vm-a', 'demo:vm-a']));
    expect(await tab(['console', 'def'])).toEqual(['default/vm-a']);
    expect(requests(), 'requests the warm Tabs made').toBe(asked);
  });

  it('keys names by context and namespace: another context or -n lists its own', async () => {
    await tab(['open', '--context', 'other', '']);
    await tab(['open', '-n', 'prod', '']);
    await refreshesDone(home);
    const other = await tab(['open', '--context', 'other', '']);
    expect(other.some((name) => name.includes('db-1'))).toBe(true);
    expect(other).not.toContain('default/vm-a');
    expect(await tab(['open', '-n', 'prod', ''])).toContain('prod/db-1');
    expect(await tab(['open', ''])).not.toContain('prod/db-1');
  });

  it('keeps the cache to the user, and no secret in it', () => {
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(cache)) {
      const file = path.join(cache, name);
      expect(fs.statSync(file).mode & 0o777, name).toBe(0o600);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).not.toContain(fixture.token);
      expect(text).not.toContain('os-password-never-cached');
    }
    const kubevirt = cacheEntries(cache).filter((entry) => entry.key.provider === 'kubevirt');
    expect(kubevirt.map((entry) => JSON.stringify(entry.key.flags)).sort()).toEqual([
      '{"--context":["other"]}',
      '{"--namespace":["prod"]}',
      '{}',
    ]);
  });

  it('refreshes a stale entry once however many Tabs ask, answering the stale names meanwhile', async () => {
    expect(oneRefresh).toBeGreaterThan(0);
    const old = new Date(Date.now() - 120_000);
    for (const entry of cacheEntries(cache)) fs.utimesSync(entry.file, old, old);
    const before = requests();
    for (let i = 0; i < 3; i++) expect(await tab(['open', ''])).toContain('default/vm-a');
    await refreshesDone(home);
    expect(requests() - before, 'requests of the refreshes three stale Tabs started').toBe(oneRefresh);
  });

  it('answers the first Tab while a cluster never answers, and its refresher ends by its own bound', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const silentConfig = path.join(home, 'silent.kubeconfig');
    fs.writeFileSync(
      silentConfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster:\n    server: https://127.0.0.1:${port}\n    insecure-skip-tls-verify: true\n` +
        'users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c\n  context:\n    cluster: s\n    user: u\ncurrent-context: c\n',
    );
    const silentEnv = { KUBECONFIG: silentConfig, VCONSOLE_COMPLETION_REFRESH_MS: '8000' };
    try {
      const child = spawn(process.execPath, [VCONSOLE_BIN, 'complete', '--', 'open', 'demo:vm-'], { env: env(silentEnv) });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(out).toContain('demo:vm-a');
      // The Tab is gone while its refresher still waits on the silent cluster: it did not wait for it.
      expect(refreshLocks(cache).length).toBeGreaterThan(0);
      await waitFor(() => refresherPids(cache).some((pid) => pid !== child.pid), 'the refresher to claim its lock');
      const refresher = refresherPids(cache).find((pid) => pid !== child.pid) ?? 0;
      await waitFor(() => !isRunning(refresher), 'the refresher to end by its bound', 30_000);
      expect(refreshLocks(cache)).toEqual([]);
      // Ended by its bound, not by the client giving up on the cluster (which lists none, kept
      // as an empty entry): the names are unknown, so nothing is kept and the next Tab asks again.
      expect(cacheEntries(cache).filter((entry) => JSON.stringify(entry.key).includes(silentConfig))).toEqual([]);
    } finally {
      silent.close();
    }
  });

  it('spends far less CPU on a warm Tab than loading the command line with its providers costs', async () => {
    const cpuOf = async (args: string[]) => {
      const child = spawn(process.execPath, args, { env: env(), stdio: 'ignore' });
      const meter = childWorkMeter(child.pid);
      await new Promise((resolve) => child.on('exit', resolve));
      return meter.stop();
    };
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const warm: number[] = [];
    const whole: number[] = [];
    const cli = new URL('../../dist/src/cli.js', import.meta.url).href;
    // What the old Tab loaded before it answered: the command line and the KubeVirt client.
    const loadAll = `await import(${JSON.stringify(cli)}); await import('@kubernetes/client-node');`;
    for (let i = 0; i < 3; i++) {
      warm.push(await cpuOf([VCONSOLE_BIN, 'complete', '--', 'open', '']));
      whole.push(await cpuOf(['--input-type=module', '-e', loadAll]));
    }
    expect(median(warm), `CPU ms of warm Tabs ${warm.join(', ')} against loading it all ${whole.join(', ')}`).toBeLessThan(
      median(whole) / 3,
    );
  });
});
