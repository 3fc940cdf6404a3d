import { describe, expect, it } from 'vitest';
import { scrubError } from '../../secrets.js';
import { PveApi, pveError } from './api.js';
import type { PveCluster } from './cluster.js';

const token = { credentials: { kind: 'token', token: 'u@pve!t=s', user: 'u@pve!t' } } as const;
const password = { credentials: { kind: 'password', user: 'alice@pve', password: 'pw' } } as const;

describe("Proxmox VE's errors, one line each", () => {
  it('401: what to check, for a token and for a password', () => {
    expect(pveError(401, 'invalid token value!', '/cluster/resources', token).hint).toMatch(/--pve-token-file/);
    expect(pveError(401, 'invalid PVE ticket', '/cluster/resources', password).hint).toMatch(/--pve-password-file/);
  });

  it('403: VM.Console on the guest for a console call, VM.Audit for the listing', () => {
    const denied = pveError(403, 'Permission check failed (/vms/7, VM.Console)', '/nodes/n/qemu/7/termproxy', token);
    expect(denied.message).toBe('Proxmox VE refused: Permission check failed (/vms/7, VM.Console) (403)');
    expect(denied.hint).toMatch(/VM\.Console on \/vms\/7/);
    expect(pveError(403, 'Permission check failed', '/cluster/resources', token).hint).toMatch(/VM\.Audit/);
  });

  it('500 "not running" says to start it; 595 names the unreachable node; others as sent', () => {
    expect(pveError(500, 'VM 7 not running', '/nodes/n/qemu/7/vncproxy', token).hint).toMatch(/qm start/);
    const away = pveError(595, 'No route to host', '/nodes/n2/qemu/7/vncproxy', token);
    expect(away.message).toBe("Proxmox VE cannot reach the guest's node: No route to host (595)");
    expect(pveError(500, "Configuration file 'nodes/n/qemu-server/7.conf' does not exist", '/x', token).message).toBe(
      "Proxmox VE answered 500 Configuration file 'nodes/n/qemu-server/7.conf' does not exist",
    );
    expect(pveError(502, '', '/x', token).message).toBe('Proxmox VE answered 502 HTTP 502');
  });
});

describe('what its errors are scrubbed of', () => {
  it('a token whole, and its secret when said alone', async () => {
    const secret = '5c0a1b2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
    const cluster = {
      url: 'https://pve:8006',
      tls: { rejectUnauthorized: true },
      credentials: { kind: 'token', token: `u@pve!t=${secret}`, user: 'u@pve!t' },
    };
    const api = new PveApi(cluster as PveCluster);
    const err = scrubError(new Error(`token u@pve!t=${secret} refused; value ${secret} unknown`), await api.secrets());
    expect(err.message).toBe('token *** refused; value *** unknown');
  });
});
