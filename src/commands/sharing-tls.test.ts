import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate, writeCertificate } from '../../test/fixtures/tls.js';
import { identityDirectory, listenerIdentity } from '../net/tls-identity.js';
import { certificateNotice, exposedIdentity } from './sharing.js';

// The certificate line of an exposed listener says when the certificate does not name the
// --listen address: gtk-vnc (remote-viewer) checks the host it dialled and would refuse it.

const dir = mkdtempSync(join(tmpdir(), 'vconsole-sharing-tls-'));
const savedConfigHome = process.env.XDG_CONFIG_HOME;
afterEach(() => {
  if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfigHome;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the certificate line and the --listen address', () => {
  it('names the address when the kept certificate (made for another --listen) lacks it, and says to delete it', async () => {
    process.env.XDG_CONFIG_HOME = join(dir, 'kept');
    await listenerIdentity({ dir: identityDirectory(), names: ['192.0.2.4'] });
    expect(certificateNotice({ tls: await exposedIdentity({}, '192.0.2.4') })).not.toMatch(/does not name/);
    expect(certificateNotice({ tls: await exposedIdentity({}, '0.0.0.0') })).not.toMatch(/does not name/);
    expect(certificateNotice({ tls: await exposedIdentity({}, '192.0.2.5') })).toMatch(
      new RegExp(
        `sha256 Fingerprint=[0-9A-F:]+; it does not name 192\\.0\\.2\\.5, so viewers that check the host \\(remote-viewer\\) refuse it there: delete ${identityDirectory().replace(/[.]/g, '\\.')} for a new one that does$`,
      ),
    );
  });

  it("says so for the user's own certificate too, whose fix is to dial a name it holds", async () => {
    const { certFile: cert, keyFile: key } = await writeCertificate(
      dir,
      'own',
      await selfSignedCertificate('bastion', ['bastion.example', '198.51.100.7']),
    );
    expect(certificateNotice({ tls: await exposedIdentity({ tlsCert: cert, tlsKey: key }, '198.51.100.7') })).not.toMatch(/does not name/);
    expect(certificateNotice({ tls: await exposedIdentity({ tlsCert: cert, tlsKey: key }, '198.51.100.8') })).toMatch(
      /; it does not name 198\.51\.100\.8, .*: dial a name it holds$/,
    );
  });
});
