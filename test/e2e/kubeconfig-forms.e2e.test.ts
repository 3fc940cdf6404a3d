// Kubeconfigs as clusters hand them out, read by `vconsole list` against the real kube-apiserver on loopback
// (issue 41 item 4): an exec credential plugin (and one that fails), a client certificate inline and in files,
// a token file, insecure-skip-tls-verify, several files in KUBECONFIG merged as kubectl merges them, and proxy-url.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy } from './support/connect-proxy.js';
import { startControlPlane, type ControlPlane } from './support/kube-control-plane.js';
import { requireKubePrograms } from './support/kube-programs.js';
import { installKubeVirtCrds } from './support/kubevirt-control-plane.js';
import { ProcessLab, runProgram, type RunResult } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

const tools = requireTools(['openssl']);
const kube = requireKubePrograms(['etcd', 'kubeApiserver', 'kubevirtCrds']);
const gate = { skip: tools.skip ?? kube.skip };
const NAMESPACE = 'vconsole-kcfg';

const lab = new ProcessLab();
let plane: ControlPlane;

type Entry = Record<string, unknown>;

/** Lets the suite's group read VMIs and VMs, as a cluster admin would grant a console user. */
async function grantReaders(): Promise<void> {
  await plane.admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'vconsole-kcfg-reader' },
    rules: [{ apiGroups: ['kubevirt.io'], resources: ['virtualmachineinstances', 'virtualmachines'], verbs: ['get', 'list', 'watch'] }],
  });
  await plane.admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'vconsole-kcfg-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'vconsole-kcfg-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'vconsole-e2e' }],
  });
}

function runningVmi(name: string): unknown {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: NAMESPACE },
    spec: { domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } },
    status: { phase: 'Running', nodeName: 'e2e-node' },
  };
}

const base64 = (file: string) => readFileSync(file).toString('base64');

function caEntry(): Entry {
  return { server: plane.server, 'certificate-authority': plane.ca.cert };
}

/** A whole kubeconfig with one cluster, user and context, written (JSON is YAML) as `name` in the plane's dir. */
async function writeConfig(name: string, parts: { cluster?: Entry; user?: Entry; context?: boolean; current?: string }) {
  const doc: Entry = { apiVersion: 'v1', kind: 'Config' };
  if (parts.cluster) doc.clusters = [{ name: 'kcfg', cluster: parts.cluster }];
  if (parts.user) doc.users = [{ name: 'kcfg-user', user: parts.user }];
  if (parts.context) doc.contexts = [{ name: 'kcfg', context: { cluster: 'kcfg', user: 'kcfg-user', namespace: NAMESPACE } }];
  if (parts.current) doc['current-context'] = parts.current;
  const path = join(plane.dir, `kcfg-${name}`);
  await writeFile(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  return path;
}

function oneFile(name: string, user: Entry, cluster: Entry = caEntry()): Promise<string> {
  return writeConfig(name, { cluster, user, context: true, current: 'kcfg' });
}

async function vconsoleList(env: NodeJS.ProcessEnv, args: string[] = []): Promise<RunResult> {
  return runProgram(process.execPath, [VCONSOLE_BIN, 'list', '--provider', 'kubevirt', '-n', NAMESPACE, '--json', ...args], {
    timeoutMs: 60_000,
    env: vconsoleEnv({ HOME: plane.dir, ...env }),
  });
}

/** Lists with `--kubeconfig file` (or KUBECONFIG when `viaEnv`), requires success and returns the targets. */
async function listedTargets(file: string, viaEnv = false): Promise<string[]> {
  const result = viaEnv ? await vconsoleList({ KUBECONFIG: file }) : await vconsoleList({}, ['--kubeconfig', file]);
  expect(result.stderr, `vconsole list with ${file}`).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { target: string }[]).map((vm) => vm.target);
}

/** A node script printing an ExecCredential with the exec user's token, from the file its environment names. */
async function execPlugin(failing: boolean): Promise<Entry> {
  const tokenPath = join(plane.dir, 'kcfg-exec.token');
  const script = join(plane.dir, failing ? 'kcfg-exec-failing.cjs' : 'kcfg-exec.cjs');
  await writeFile(tokenPath, plane.tokens.exec, { mode: 0o600 });
  const body = failing
    ? `process.stderr.write('the identity provider said no\\n'); process.exit(1);\n`
    : `const token = require('node:fs').readFileSync(process.env.KCFG_TOKEN_FILE, 'utf8').trim();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));\n`;
  await writeFile(script, body);
  return {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [script],
      env: [{ name: 'KCFG_TOKEN_FILE', value: tokenPath }],
      interactiveMode: 'Never',
    },
  };
}

const WANTED = [`${NAMESPACE}/vm-a`];

describe.skipIf(gate.skip)(gatedTitle('kubeconfig forms against a real kube-apiserver', gate), () => {
  beforeAll(async () => {
    plane = await startControlPlane(lab, kube.programs);
    await plane.admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    await installKubeVirtCrds(plane, kube.programs);
    await grantReaders();
    await plane.admin.ok('POST', `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances`, runningVmi('vm-a'));
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(() => lab.cleanup(), E2E_SETUP_TIMEOUT_MS);

  it(
    'lists through an exec credential plugin; a plugin that exits 1 gives one line, exit 1, and no token',
    async () => {
      expect(await listedTargets(await oneFile('exec', await execPlugin(false)))).toEqual(WANTED);
      const failing = await vconsoleList({}, ['--kubeconfig', await oneFile('exec-failing', await execPlugin(true))]);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toBe('');
      const lines = failing.stderr.trim().split('\n');
      expect(lines, failing.stderr).toHaveLength(1);
      // The plugin's stderr line, without the newline client-node keeps in it.
      expect(lines[0]).toBe(
        'vconsole: cannot get Kubernetes credentials: the identity provider said no; check the kubeconfig user (exec plugin, token or certificate)',
      );
      expect(failing.stderr).not.toMatch(/\n\s+at /);
      expect(failing.stderr).not.toContain(plane.tokens.exec);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'lists with a client certificate inline (-data) and as file paths',
    async () => {
      const { cert, key } = plane.userCert;
      const inline = await oneFile('cert-inline', { 'client-certificate-data': base64(cert), 'client-key-data': base64(key) });
      expect(await listedTargets(inline)).toEqual(WANTED);
      expect(await listedTargets(await oneFile('cert-files', { 'client-certificate': cert, 'client-key': key }))).toEqual(WANTED);
      const caInline = { server: plane.server, 'certificate-authority-data': base64(plane.ca.cert) };
      expect(await listedTargets(await oneFile('cert-ca-inline', { 'client-certificate': cert, 'client-key': key }, caInline))).toEqual(
        WANTED,
      );
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'lists with a token file (user.tokenFile), read as kubectl reads it',
    async () => {
      const tokenPath = join(plane.dir, 'kcfg-user.token');
      await writeFile(tokenPath, `${plane.tokens.token}\n`, { mode: 0o600 });
      expect(await listedTargets(await oneFile('token-file', { tokenFile: tokenPath }))).toEqual(WANTED);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'lists with insecure-skip-tls-verify and no CA; without either it names the TLS problem in one line',
    async () => {
      const user = { token: plane.tokens.token };
      const skip = await oneFile('insecure', user, { server: plane.server, 'insecure-skip-tls-verify': true });
      expect(await listedTargets(skip)).toEqual(WANTED);
      const noCa = await vconsoleList({}, ['--kubeconfig', await oneFile('no-ca', user, { server: plane.server })]);
      expect(noCa.code).toBe(1);
      const lines = noCa.stderr.trim().split('\n');
      expect(lines, noCa.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/certificate|TLS/i);
      expect(noCa.stderr).not.toContain(plane.tokens.token);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'merges several files in KUBECONFIG as kubectl does: cluster, user and context from different files, first current-context wins',
    async () => {
      const contexts = await writeConfig('merge-contexts', { context: true, current: 'kcfg' });
      const cluster = await writeConfig('merge-cluster', { cluster: caEntry(), current: 'no-such-context' });
      const user = await writeConfig('merge-user', { user: { token: plane.tokens.token } });
      expect(await listedTargets([contexts, cluster, user].join(':'), true)).toEqual(WANTED);
      const wrongFirst = await vconsoleList({ KUBECONFIG: [cluster, contexts, user].join(':') });
      expect(wrongFirst.code, wrongFirst.stderr).toBe(1);
      expect(wrongFirst.stderr).toBe('vconsole: the kubeconfig names no cluster for the current context; pass --context NAME\n');
      // A tokenFile user from another file goes the client-node way (merged files), not the plain reader's.
      const tokenPath = join(plane.dir, 'kcfg-merged.token');
      await writeFile(tokenPath, plane.tokens.token, { mode: 0o600 });
      const tokenFileUser = await writeConfig('merge-token-file', { user: { tokenFile: tokenPath } });
      expect(await listedTargets([contexts, cluster, tokenFileUser].join(':'), true)).toEqual(WANTED);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'lists through the proxy-url of the cluster (an HTTP CONNECT tunnel to the API server)',
    async () => {
      const proxy = await startConnectProxy();
      try {
        const file = await oneFile('proxy', { token: plane.tokens.token }, { ...caEntry(), 'proxy-url': proxy.url });
        expect(await listedTargets(file)).toEqual(WANTED);
        expect(proxy.tunnels.length).toBeGreaterThan(0);
        expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(plane.server).host]));
      } finally {
        await proxy.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
