import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readPlainKubeconfig } from './kubeconfig-plain.js';
import { loadKubeAccess, requestOptions } from './kubernetes-api.js';

const dir = mkdtempSync(join(tmpdir(), 'vconsole-kubeconfig-token-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, 'token'), 'file-token\n');

function write(name: string, doc: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
  return file;
}

const cluster = { name: 'c', cluster: { server: 'https://10.0.0.1:6443' } };
const context = { name: 'ctx', context: { cluster: 'c', user: 'u' } };
const environment = (kubeconfig: string) => ({ env: { KUBECONFIG: kubeconfig }, homeDir: dir, serviceAccountDir: join(dir, 'none') });

async function authorization(credentials: { applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> }): Promise<unknown> {
  const opts: https.RequestOptions = {};
  await credentials.applyToHTTPSOptions(opts);
  return (opts.headers as Record<string, unknown> | undefined)?.Authorization;
}

describe("a kubeconfig user's tokenFile", () => {
  it('is read (relative to the kubeconfig, trimmed) by the plain reader', async () => {
    const file = write('plain.yaml', {
      clusters: [cluster],
      users: [{ name: 'u', user: { tokenFile: 'token' } }],
      contexts: [context],
      'current-context': 'ctx',
    });
    const plain = await readPlainKubeconfig(file);
    expect(plain).toBeDefined();
    expect(await authorization(plain!.credentials)).toBe('Bearer file-token');
  });

  it('loses to an inline token, as in kubectl', async () => {
    const user = { token: 'inline-token', tokenFile: 'token' };
    const file = write('both.yaml', { clusters: [cluster], users: [{ name: 'u', user }], contexts: [context], 'current-context': 'ctx' });
    expect(await authorization((await readPlainKubeconfig(file))!.credentials)).toBe('Bearer inline-token');
  });

  it('is read when the user comes from another file of a merged KUBECONFIG (client-node drops it)', async () => {
    const first = write('merged-1.yaml', { clusters: [cluster], contexts: [context], 'current-context': 'ctx' });
    const second = write('merged-2.yaml', { users: [{ name: 'u', user: { tokenFile: join(dir, 'token') } }] });
    const access = await loadKubeAccess({}, environment(`${first}:${second}`));
    const opts = await requestOptions(access);
    expect((opts.headers as Record<string, unknown>).Authorization).toBe('Bearer file-token');
  });

  it('names the file in one line when it cannot be read', async () => {
    const first = write('missing-1.yaml', { clusters: [cluster], contexts: [context], 'current-context': 'ctx' });
    const second = write('missing-2.yaml', { users: [{ name: 'u', user: { tokenFile: 'no-such-token' } }] });
    const access = await loadKubeAccess({}, environment(`${first}:${second}`));
    await expect(requestOptions(access)).rejects.toThrow(/tokenFile .*no-such-token/);
  });
});
