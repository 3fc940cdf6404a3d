// The certificates and keys a loopback Kubernetes control plane needs, made with openssl (P-256 keys, two days):
// the cluster CA (serving certs and client certs of users), the front-proxy CA that the aggregation layer's
// requestheader trust rests on, and the service-account signing key pair.
import { join } from 'node:path';
import { runProgram } from './processes.js';

export interface CertPair {
  cert: string;
  key: string;
}

export interface LeafRequest {
  /** The subject's CN: the user name for a client certificate. */
  commonName: string;
  /** Subject O entries: the user's groups for a client certificate. */
  organizations?: readonly string[];
  /** DNS names and IPs for a serving certificate. */
  dnsNames?: readonly string[];
  ips?: readonly string[];
  usage: 'server' | 'client';
}

const DAYS = '2';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: readonly string[], what: string): Promise<void> {
  const result = await runProgram('openssl', args, { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`openssl could not make ${what} (exit ${result.code}): ${result.stderr.trim()}`);
}

/** Subject names as openssl's -subj wants them; the values here are this suite's own fixed words. */
function subject(commonName: string, organizations: readonly string[] = []): string {
  return `${organizations.map((o) => `/O=${o}`).join('')}/CN=${commonName}`;
}

/** openssl req's arguments for a new key and its certificate at pair, for subject. */
function newCertificate(pair: CertPair, subjectName: string): string[] {
  return ['req', '-x509', ...EC_KEY, '-keyout', pair.key, '-out', pair.cert, '-days', DAYS, '-subj', subjectName];
}

export async function makeCa(dir: string, name: string): Promise<CertPair> {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  await openssl(
    [
      ...newCertificate(pair, subject(name)),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    `the CA ${name}`,
  );
  return pair;
}

export async function makeLeaf(dir: string, name: string, ca: CertPair, request: LeafRequest): Promise<CertPair> {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  const names = [...(request.dnsNames ?? []).map((d) => `DNS:${d}`), ...(request.ips ?? []).map((ip) => `IP:${ip}`)];
  const extensions = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${request.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
    ...(names.length > 0 ? [`subjectAltName=${names.join(',')}`] : []),
  ];
  await openssl(
    [
      ...newCertificate(pair, subject(request.commonName, request.organizations)),
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      ...extensions.flatMap((e) => ['-addext', e]),
    ],
    `the certificate ${name}`,
  );
  return pair;
}

/** The key pair kube-apiserver signs service-account tokens with (private) and checks them against (public). */
export async function makeSigningKey(dir: string, name: string): Promise<{ privateKey: string; publicKey: string }> {
  const privateKey = join(dir, `${name}.key`);
  const publicKey = join(dir, `${name}.pub`);
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', privateKey], 'the signing key');
  await openssl(['pkey', '-in', privateKey, '-pubout', '-out', publicKey], 'the public signing key');
  return { privateKey, publicKey };
}
