// A real Kubernetes control plane on loopback for the KubeVirt end-to-end tests: etcd with a temp data dir and
// kube-apiserver with RBAC, the aggregation layer (front-proxy client certificate, requestheader trust),
// service-account token signing, a static token user and a client-certificate user. There is no kubelet, no
// controller manager and no scheduler: what a test needs on a node is created through the API. The programs are
// the ones scripts/kube/build.sh built (kube-programs.ts).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeCa, makeLeaf, makeSigningKey, type CertPair } from './kube-certs.js';
import { kubeClient, type KubeClient } from './kube-http.js';
import type { KubePrograms } from './kube-programs.js';
import { freeLoopbackPort } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';

/** Each way the API authenticates someone that a test drives. Names are this suite's own. */
export const USERS = {
  admin: { name: 'vconsole-e2e-admin', groups: ['system:masters'] },
  cert: { name: 'vconsole-e2e-cert-user', groups: ['vconsole-e2e'] },
  token: { name: 'vconsole-e2e-token-user', groups: ['vconsole-e2e'] },
  exec: { name: 'vconsole-e2e-exec-user', groups: ['vconsole-e2e'] },
} as const;

/** The front-proxy client's CN: the only name kube-apiserver and aggregated servers accept identity headers from. */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc';

export interface ControlPlane {
  dir: string;
  server: string;
  ca: CertPair;
  frontProxyCa: CertPair;
  /** Client certificates: the harness's own (system:masters) and the test user's. */
  adminCert: CertPair;
  userCert: CertPair;
  /** Bearer tokens kube-apiserver knows from its --token-auth-file. */
  tokens: { token: string; exec: string };
  /** The harness's client (admin certificate). */
  admin: KubeClient;
  etcd: RunningProcess;
  apiserver: RunningProcess;
}

const START_TIMEOUT_MS = 180_000;

async function startEtcd(lab: ProcessLab, programs: KubePrograms, dir: string): Promise<{ url: string; etcd: RunningProcess }> {
  const clientPort = await freeLoopbackPort();
  const peerPort = await freeLoopbackPort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const etcd = lab.start('etcd', programs.etcd, [
    '--name=e2e',
    `--data-dir=${join(dir, 'etcd')}`,
    '--log-level=warn',
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=e2e=${peer}`,
    // A test's store: nothing survives the run, so syncing each write to disk only slows a shared machine.
    '--unsafe-no-fsync',
  ]);
  await pollFor(
    async () => {
      if (etcd.hasExited()) throw new GiveUp(`etcd exited:\n${etcd.describe()}`);
      const answer = await fetch(`${client}/health`).catch(() => undefined);
      return answer?.ok ? true : undefined;
    },
    { what: 'etcd to answer /health', timeoutMs: START_TIMEOUT_MS, detail: () => etcd.describe() },
  );
  return { url: client, etcd };
}

async function makePki(dir: string) {
  const ca = await makeCa(dir, 'cluster-ca');
  const frontProxyCa = await makeCa(dir, 'front-proxy-ca');
  return {
    ca,
    frontProxyCa,
    serving: await makeLeaf(dir, 'apiserver', ca, {
      commonName: 'kube-apiserver',
      usage: 'server',
      ips: ['127.0.0.1'],
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
    }),
    frontProxyClient: await makeLeaf(dir, 'front-proxy-client', frontProxyCa, { commonName: FRONT_PROXY_CLIENT, usage: 'client' }),
    adminCert: await makeLeaf(dir, 'admin', ca, { commonName: USERS.admin.name, organizations: USERS.admin.groups, usage: 'client' }),
    userCert: await makeLeaf(dir, 'cert-user', ca, { commonName: USERS.cert.name, organizations: USERS.cert.groups, usage: 'client' }),
    signing: await makeSigningKey(dir, 'service-account'),
  };
}

/** kube-apiserver's static token file: token,user,uid,"group,group". */
function tokenFile(tokens: { token: string; exec: string }): string {
  const line = (token: string, user: { name: string; groups: readonly string[] }) =>
    `${token},${user.name},${user.name},"${user.groups.join(',')}"`;
  return `${line(tokens.token, USERS.token)}\n${line(tokens.exec, USERS.exec)}\n`;
}

/** Starts etcd and kube-apiserver in a temp dir of `lab` and resolves once /readyz answers ok. */
export async function startControlPlane(lab: ProcessLab, programs: KubePrograms): Promise<ControlPlane> {
  const dir = await lab.tempDir('kube');
  const pki = await makePki(dir);
  const tokens = { token: randomBytes(24).toString('hex'), exec: randomBytes(24).toString('hex') };
  const tokensPath = join(dir, 'tokens.csv');
  await writeFile(tokensPath, tokenFile(tokens), { mode: 0o600 });
  const { url: etcdUrl, etcd } = await startEtcd(lab, programs, dir);
  const port = await freeLoopbackPort();
  const apiserver = lab.start('kube-apiserver', programs.kubeApiserver, [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.serving.cert}`,
    `--tls-private-key-file=${pki.serving.key}`,
    `--client-ca-file=${pki.ca.cert}`,
    `--token-auth-file=${tokensPath}`,
    '--authorization-mode=RBAC',
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${pki.signing.publicKey}`,
    `--service-account-signing-key-file=${pki.signing.privateKey}`,
    // Cluster IPs are only allocated, never dialled: the aggregator reaches virt-api through an ExternalName
    // Service on loopback, and no Endpoints of the kubernetes Service are kept (nothing runs in-cluster).
    '--service-cluster-ip-range=10.0.0.0/24',
    '--endpoint-reconciler-type=none',
    `--requestheader-client-ca-file=${pki.frontProxyCa.cert}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.frontProxyClient.cert}`,
    `--proxy-client-key-file=${pki.frontProxyClient.key}`,
    '--profiling=false',
    '--v=1',
  ]);
  const server = `https://127.0.0.1:${port}`;
  const admin = kubeClient(server, pki.ca.cert, pki.adminCert);
  await pollFor(
    async () => {
      if (apiserver.hasExited()) throw new GiveUp(`kube-apiserver exited:\n${apiserver.describe()}`);
      return (await admin.call('GET', '/readyz')).status === 200 ? true : undefined;
    },
    { what: 'kube-apiserver to answer /readyz with 200', timeoutMs: START_TIMEOUT_MS, intervalMs: 250, detail: () => apiserver.describe() },
  );
  return {
    dir,
    server,
    ca: pki.ca,
    frontProxyCa: pki.frontProxyCa,
    adminCert: pki.adminCert,
    userCert: pki.userCert,
    tokens,
    admin,
    etcd,
    apiserver,
  };
}
