import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';
import { parsePveUrl, parseTag, pveSelection } from './options.js';
import { parseTokenLine } from './cluster.js';

describe('Proxmox VE options', () => {
  it('--pve-url takes a host or an https URL; the port defaults to 8006', () => {
    expect(parsePveUrl('pve1.example')).toBe('https://pve1.example:8006');
    expect(parsePveUrl('https://10.0.0.5:443/')).toBe('https://10.0.0.5');
    expect((thrownBy(() => parsePveUrl('http://pve1:8006')) as Error).message).toMatch(/API is https/);
    expect((thrownBy(() => parsePveUrl('https://root:pw@pve1')) as Error).message).toMatch(/no credentials/);
  });

  it('--pve-pool, --pve-node and --pve-tag select; tags in lower case', () => {
    expect(pveSelection({})).toBeUndefined();
    expect(parseTag('Web')).toBe('web');
    expect(pveSelection({ pvePool: 'prod', pveTag: ['web', 'db'] })).toEqual({
      scope: { pvePool: 'prod', pveNode: undefined, pveTags: ['web', 'db'] },
      shownAs: '--pve-pool prod --pve-tag web --pve-tag db',
      reach: 'matching',
    });
    // Beside a name (pve:db --pve-node pve1) the node only says which "db": it selects nothing more.
    expect(pveSelection({ pveNode: 'pve1' })?.reach).toBe('places');
  });

  it('a token file holds USER@REALM!TOKENID=SECRET (PVEAPIToken= allowed), refused without echoing it', () => {
    expect(parseTokenLine('PVEAPIToken=root@pam!vc=abc-123', 'f')).toEqual({ token: 'root@pam!vc=abc-123', user: 'root@pam!vc' });
    const err = thrownBy(() => parseTokenLine('just-a-secret-value', 'f')) as Error;
    expect(err.message).toBe('--pve-token-file f: the first line is not an API token');
    expect(err.message).not.toContain('just-a-secret');
  });
});
