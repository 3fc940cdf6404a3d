import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate, writeCertificate } from '../../test/fixtures/tls.js';
import { CERT_FILE_NAME, KEY_FILE_NAME, listenerIdentity } from './tls-identity.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tls-identity-'));
  dirs.push(dir);
  return dir;
}

describe('listenerIdentity', () => {
  it('makes a key and a self-signed certificate on first use, 0600 in a 0700 directory, and keeps them', async () => {
    const dir = join(tempDir(), 'vconsole', 'tls');
    const made = await listenerIdentity({ dir, names: ['bastion.example', '192.0.2.7'] });
    expect(made.generated).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, CERT_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(made.certFile).toBe(join(dir, CERT_FILE_NAME));
    // The fingerprint is the one openssl prints for the file, colon-hex.
    const openssl = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256', '-in', made.certFile], { encoding: 'utf8' });
    expect(openssl.trim()).toMatch(new RegExp(`^sha256 Fingerprint=${made.fingerprint}$`, 'i'));
    expect(made.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const cert = new X509Certificate(readFileSync(made.certFile));
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:bastion.example');
    expect(cert.subjectAltName).toContain('IP Address:192.0.2.7');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(readFileSync(join(dir, KEY_FILE_NAME))))).toBe(true);

    const again = await listenerIdentity({ dir });
    expect([again.generated, again.fingerprint]).toEqual([false, made.fingerprint]);
  });

  it('refuses a kept key that other users can read', async () => {
    const dir = tempDir();
    await listenerIdentity({ dir });
    chmodSync(join(dir, KEY_FILE_NAME), 0o644);
    await expect(listenerIdentity({ dir })).rejects.toThrow(/listener-key\.pem can be read by other users \(mode 644\)/);
  });

  it("takes the user's own certificate and key, which go together and must match", async () => {
    const dir = tempDir();
    const { certFile: cert, keyFile: key } = await writeCertificate(dir, 'own', await selfSignedCertificate('own'));
    const { keyFile: otherKey } = await writeCertificate(dir, 'other', await selfSignedCertificate('other'));
    const own = await listenerIdentity({ dir: join(dir, 'unused'), certFile: cert, keyFile: key });
    expect([own.generated, own.certFile, own.fingerprint]).toEqual([false, cert, new X509Certificate(readFileSync(cert)).fingerprint256]);
    await expect(listenerIdentity({ dir, certFile: cert })).rejects.toThrow(/--tls-cert and --tls-key go together/);
    await expect(listenerIdentity({ dir, certFile: cert, keyFile: otherKey })).rejects.toThrow(
      /own-cert\.pem: not a usable certificate and key/,
    );
    writeFileSync(join(dir, 'junk.pem'), 'junk');
    await expect(listenerIdentity({ dir, certFile: join(dir, 'junk.pem'), keyFile: key })).rejects.toThrow(/not a usable certificate/);
    await expect(listenerIdentity({ dir, certFile: join(dir, 'none.pem'), keyFile: key })).rejects.toThrow(
      /--tls-cert .*none\.pem: no such file/,
    );
  });
});
