import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readPlainKubeconfig } from './kubeconfig-plain.js';
import { loadKubeAccess } from './kubernetes-api.js';

const dir = mkdtempSync(join(tmpdir(), 'vconsole-kubeconfig-plain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n';
const b64 = (text: string) => Buffer.from(text).toString('base64');
mkdirSync(join(dir, 'pki'));
writeFileSync(join(dir, 'pki', 'ca.crt'), CA);
writeFileSync(join(dir, 'pki', 'client.crt'), CERT);
writeFileSync(join(dir, 'pki', 'client.key'), KEY);

let counter = 0;
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, context: Record<string, unknown> = {}): string {
  const file = join(dir, `config-${++counter}.yaml`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [
        { name: 'ctx', context: { cluster: 'c', user: 'u', ...context } },
        { name: 'other', context: { cluster: 'c', user: 'u', namespace: 'other-ns' } },
      ],
      'current-context': 'ctx',
    }),
  );
  return file;
}

/** What a request gets from client-node's KubeConfig and from the plain reader, side by side. */
async function bothOptions(file: string, context?: string) {
  const reference = new KubeConfig();
  reference.loadFromFile(file);
  if (context) reference.setCurrentContext(context);
  const expected: https.RequestOptions = {};
  await reference.applyToHTTPSOptions(expected);
  const plain = await readPlainKubeconfig(file, context);
  expect(plain).toBeDefined();
  const got: https.RequestOptions = {};
  await plain!.credentials.applyToHTTPSOptions(got);
  const agentOptions = (o: https.RequestOptions) => (o.agent as https.Agent & { options: https.AgentOptions }).options;
  const tlsOf = (o: https.RequestOptions) => ({
    ca: o.ca,
    cert: o.cert,
    key: o.key,
    rejectUnauthorized: o.rejectUnauthorized,
    headers: o.headers,
    agent: {
      ca: agentOptions(o).ca,
      cert: agentOptions(o).cert,
      key: agentOptions(o).key,
      rejectUnauthorized: agentOptions(o).rejectUnauthorized,
    },
  });
  return { expected: tlsOf(expected), got: tlsOf(got), plain: plain!, reference };
}

describe('kubeconfigs read without client-node', () => {
  it('a token and inline CA: the same TLS settings and Authorization header as client-node', async () => {
    const { expected, got, plain } = await bothOptions(
      kubeconfig({ 'certificate-authority-data': b64(CA) }, { token: 'abc.def' }, { namespace: 'lab' }),
    );
    expect(got).toEqual(expected);
    expect(got.headers).toEqual({ Authorization: 'Bearer abc.def' });
    expect(plain.namespace).toBe('lab');
    expect(plain.server).toBe('https://10.0.0.1:6443');
    expect(plain.credentials.getCurrentContext()).toBe('ctx');
  });

  it('a client certificate in files named relative to the kubeconfig, CA file, as client-node reads them', async () => {
    const { expected, got } = await bothOptions(
      kubeconfig({ 'certificate-authority': 'pki/ca.crt' }, { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' }),
    );
    expect(got).toEqual(expected);
    expect(String(got.cert)).toBe(CERT);
  });

  it('inline client certificate, insecure-skip-tls-verify, and a context picked by name', async () => {
    const file = kubeconfig({ 'insecure-skip-tls-verify': true }, { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) });
    const { expected, got, plain } = await bothOptions(file, 'other');
    expect(got).toEqual(expected);
    expect(got.rejectUnauthorized).toBe(false);
    expect(plain.namespace).toBe('other-ns');
    expect(plain.credentials.getCurrentContext()).toBe('other');
  });

  it("reads the user's as and as-groups (impersonation.ts sets the headers; client-node reads only as)", async () => {
    const plain = await readPlainKubeconfig(kubeconfig({}, { token: 't', as: 'jane', 'as-groups': ['devs', 'ops'] }));
    expect(plain?.impersonation).toEqual({ user: 'jane', groups: ['devs', 'ops'] });
  });

  it.each([
    ['an exec plugin', {}, { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'get-token' } }],
    ['an auth provider', {}, { 'auth-provider': { name: 'oidc', config: {} } }],
    ['a user name and password', {}, { username: 'a', password: 'b' }],
    ['as-groups that are not a list of strings', {}, { token: 't', as: 'admin', 'as-groups': 'devs' }],
    ['a proxy', { 'proxy-url': 'http://proxy:3128' }, { token: 't' }],
    ['a TLS server name', { 'tls-server-name': 'api.internal' }, { token: 't' }],
    ['plain HTTP', { server: 'http://127.0.0.1:8001' }, { token: 't' }],
    ['a non-string token', {}, { token: 12345 }],
  ])('leaves %s to client-node', async (_what, cluster, user) => {
    expect(await readPlainKubeconfig(kubeconfig(cluster, user))).toBeUndefined();
  });

  it('leaves a missing context, a file that does not parse and a missing file to client-node', async () => {
    const file = kubeconfig({}, { token: 't' });
    expect(await readPlainKubeconfig(file, 'nope')).toBeUndefined();
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'clusters: [\n');
    expect(await readPlainKubeconfig(broken)).toBeUndefined();
    expect(await readPlainKubeconfig(join(dir, 'missing.yaml'))).toBeUndefined();
  });
});

describe('loadKubeAccess', () => {
  const env = (extra: NodeJS.ProcessEnv) => ({ env: extra, homeDir: join(dir, 'no-home'), serviceAccountDir: join(dir, 'no-sa') });

  it('reads a plain kubeconfig without client-node, and an exec one with it', async () => {
    const plain = await loadKubeAccess({ kubeconfig: kubeconfig({ 'certificate-authority-data': b64(CA) }, { token: 't' }) }, env({}));
    expect(plain.config).not.toBeInstanceOf(KubeConfig);
    expect(plain.namespace).toBe('default');
    const exec = await loadKubeAccess(
      { kubeconfig: kubeconfig({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'true' } }) },
      env({}),
    );
    expect(exec.config).toBeInstanceOf(KubeConfig);
  });

  it('still merges several KUBECONFIG files with client-node', async () => {
    const a = kubeconfig({}, { token: 'a' });
    const b = kubeconfig({}, { token: 'b' });
    const access = await loadKubeAccess({}, env({ KUBECONFIG: `${a}:${b}` }));
    expect(access.config).toBeInstanceOf(KubeConfig);
  });

  it('-n wins over the context namespace on the plain path', async () => {
    const access = await loadKubeAccess(
      { kubeconfig: kubeconfig({}, { token: 't' }, { namespace: 'ctx-ns' }), namespace: 'flag-ns' },
      env({}),
    );
    expect(access.namespace).toBe('flag-ns');
    expect(access.config).not.toBeInstanceOf(KubeConfig);
  });
});
