import { X509Certificate, webcrypto } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { UsageError, VconsoleError } from '../errors.js';
import { FileWriteError, createPrivateFileSync, ensureDirectory, fileErrorCause } from '../files/safe-file.js';

/**
 * The certificate and key an exposed listener speaks TLS with: the user's own (--tls-cert,
 * --tls-key), or one made on first use and kept in vconsole's config directory (key 0600, in a
 * 0700 directory), the same for every later exposed listener so that viewers trust it once.
 * Its SHA-256 fingerprint is what users compare or pin.
 */
export interface TlsIdentity {
  /** PEM certificate (chain) and key, as node:tls takes them. */
  cert: string;
  key: string;
  /** SHA-256 of the certificate's DER, colon-separated upper-case hex, as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  /** The certificate file (what viewers are given as their CA file). */
  certFile: string;
  /** True when it was made just now. */
  generated: boolean;
  context: tls.SecureContext;
  /** Said when the certificate does not name the listen address (made for an earlier one, or the user's own). */
  unnamedListen?: string;
}

export const CERT_FILE_NAME = 'listener-cert.pem';
export const KEY_FILE_NAME = 'listener-key.pem';

/**
 * What an exposed listener speaks: TLS 1.3 with OpenSSL's suites (all AEAD), and TLS 1.2 only
 * with ECDHE and an AEAD cipher (AES-GCM, ChaCha20-Poly1305), for viewers whose TLS stops at 1.2.
 * The CBC-SHA suites OpenSSL still offers for 1.2 (and the static-RSA ones, which have no forward
 * secrecy) are left out: CBC with MAC-then-encrypt is what padding-oracle attacks (Lucky 13) feed
 * on. Every viewer vconsole is tested with (GnuTLS: TigerVNC, gtk-vnc) speaks 1.3 or these.
 */
const LISTENER_TLS: Pick<tls.SecureContextOptions, 'minVersion' | 'ciphers'> = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
};

/** Ten years: a certificate pinned by its users is replaced by deleting it, not by expiry. */
const VALIDITY_DAYS = 3650;

/**
 * The identity in `dir` (made there first when absent), or the given files. `names` are put in
 * a new certificate beside this machine's name and addresses, so viewers that check the host
 * (gtk-vnc does, TigerVNC asks) accept it whichever of them they dial.
 */
export async function listenerIdentity(options: {
  dir: string;
  certFile?: string;
  keyFile?: string;
  names?: string[];
}): Promise<TlsIdentity> {
  if ((options.certFile === undefined) !== (options.keyFile === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together', 'give both files, or neither for the certificate vconsole makes');
  }
  if (options.certFile !== undefined && options.keyFile !== undefined) {
    return identityFrom(readPem(options.certFile, '--tls-cert'), readPem(options.keyFile, '--tls-key'), options.certFile, false);
  }
  const certFile = path.join(options.dir, CERT_FILE_NAME);
  const keyFile = path.join(options.dir, KEY_FILE_NAME);
  if (fs.existsSync(certFile) || fs.existsSync(keyFile)) {
    refuseOpenKey(keyFile);
    return identityFrom(readPem(certFile, 'the listener certificate'), readPem(keyFile, 'the listener key'), certFile, false);
  }
  const made = await selfSigned([...new Set([...(options.names ?? []), ...machineNames()])]);
  ensureDirectory(options.dir);
  writeNew(keyFile, made.key);
  writeNew(certFile, made.cert);
  return identityFrom(made.cert, made.key, certFile, true);
}

/** The directory the made certificate lives in: beside the config file. */
export function identityDirectory(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'vconsole', 'tls');
}

/** This machine's names and addresses (loopback included), for the certificate's subjectAltName. */
function machineNames(): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.address.startsWith('fe80') ? [info.address] : []));
  return ['localhost', os.hostname(), '127.0.0.1', '::1', ...addresses];
}

function identityFrom(cert: string, key: string, certFile: string, generated: boolean): TlsIdentity {
  let fingerprint: string;
  let context: tls.SecureContext;
  try {
    fingerprint = new X509Certificate(cert).fingerprint256;
    context = tls.createSecureContext({ cert, key, ...LISTENER_TLS });
  } catch (err) {
    throw new VconsoleError(`${certFile}: not a usable certificate and key: ${err instanceof Error ? err.message : String(err)}`, {
      hint: 'give a PEM certificate (--tls-cert) and its PEM private key (--tls-key)',
    });
  }
  return { cert, key, fingerprint, certFile, generated, context };
}

function readPem(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${what} ${file}: ${fileErrorCause(err)}`);
  }
}

/** A key others may read is no secret any more: say so rather than serve with it. */
function refuseOpenKey(keyFile: string): void {
  let mode: number;
  try {
    mode = fs.statSync(keyFile).mode;
  } catch {
    return; // readPem says why
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new VconsoleError(`${keyFile} can be read by other users (mode ${(mode & 0o777).toString(8)}), so its key may be known`, {
      hint: `delete ${path.dirname(keyFile)} for a new certificate, or chmod 600 it if nobody else could read it`,
    });
  }
}

function writeNew(file: string, text: string): void {
  let fd: number | undefined;
  try {
    fd = createPrivateFileSync(file);
    fs.writeFileSync(fd, text);
  } catch (err) {
    throw new FileWriteError(file, err);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** An ECDSA P-256 key and a self-signed certificate for `names` (host names and IP addresses). */
async function selfSigned(names: string[]): Promise<{ cert: string; key: string }> {
  // @peculiar/x509's dependency injection needs the Reflect metadata API before it loads.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const subtle = webcrypto.subtle;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=vconsole on ${os.hostname().replace(/[,+="<>#;\\]/g, '_')}`,
      notBefore: new Date(now - 60 * 60 * 1000),
      notAfter: new Date(now + VALIDITY_DAYS * 24 * 60 * 60 * 1000),
      signingAlgorithm: algorithm,
      keys,
      extensions: [
        // Its own issuer, as `openssl req -x509` makes one: viewers take the file as their CA file.
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: isIp(value) ? ('ip' as const) : ('dns' as const), value }))),
      ],
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: `${cert.toString('pem')}\n`, key: key.replace(/\n\n/g, '\n') };
}

function isIp(value: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(value) || value.includes(':');
}

/** True when the PEM certificate `cert` names the IP address `address` (subjectAltName). */
export function certificateNames(cert: string, address: string): boolean {
  return new X509Certificate(cert).checkIP(address) !== undefined;
}
