import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_APP_CREDENTIAL,
  FIXTURE_USER,
  startOpenStackFixture,
  type OpenStackFixture,
} from '../../../test/fixtures/openstack-api.js';
import { describeError } from '../../errors.js';
import type { CloudConfig } from './config.js';
import { KeystoneSession, authRequestBody, computeEndpoint, renewTime, tokensUrl, type CatalogService } from './keystone.js';

const signal = () => AbortSignal.timeout(20_000);
const NO_TLS = { rejectUnauthorized: true };

function passwordCloud(authUrl: string, password = FIXTURE_USER.password): CloudConfig {
  return {
    name: 'fx',
    method: 'password',
    auth: { authUrl, username: 'alice', password, userDomainName: 'Default', projectName: 'demo', projectDomainId: 'default' },
    interface: 'public',
    insecure: false,
    files: [],
  };
}

describe('Keystone requests', () => {
  it('posts to /v3/auth/tokens whether auth_url has /v3, /v2.0 or no version', () => {
    expect(tokensUrl('https://k:5000')).toBe('https://k:5000/v3/auth/tokens');
    expect(tokensUrl('https://k:5000/v3/')).toBe('https://k:5000/v3/auth/tokens');
    expect(tokensUrl('https://k/identity/v3')).toBe('https://k/identity/v3/auth/tokens');
    expect(tokensUrl('https://k:5000/v2.0')).toBe('https://k:5000/v3/auth/tokens');
  });

  it('scopes a password login to the project', () => {
    expect(authRequestBody(passwordCloud('http://k'))).toEqual({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: 'alice', domain: { name: 'Default' }, password: FIXTURE_USER.password } },
        },
        scope: { project: { name: 'demo', domain: { id: 'default' } } },
      },
    });
  });

  it('sends an application credential by ID without a scope', () => {
    const cloud: CloudConfig = {
      ...passwordCloud('http://k'),
      method: 'application_credential',
      auth: { authUrl: 'http://k', applicationCredentialId: 'ac', applicationCredentialSecret: 's' },
    };
    expect(authRequestBody(cloud)).toEqual({
      auth: { identity: { methods: ['application_credential'], application_credential: { id: 'ac', secret: 's' } } },
    });
  });
});

describe('service catalog', () => {
  const catalog: CatalogService[] = [
    { type: 'identity', endpoints: [{ interface: 'public', region_id: 'R1', url: 'http://k' }] },
    {
      type: 'compute',
      endpoints: [
        { interface: 'public', region_id: 'R1', url: 'https://nova-r1:8774/v2.1/' },
        { interface: 'internal', region_id: 'R1', url: 'http://nova-int:8774/v2.1' },
        { interface: 'public', region_id: 'R2', url: 'https://nova-r2:8774' },
      ],
    },
  ];

  it('picks the compute endpoint for interface and region', () => {
    expect(computeEndpoint(catalog, 'public', undefined, 'c')).toBe('https://nova-r1:8774/v2.1');
    expect(computeEndpoint(catalog, 'internal', 'R1', 'c')).toBe('http://nova-int:8774/v2.1');
    expect(computeEndpoint(catalog, 'public', 'R2', 'c')).toBe('https://nova-r2:8774/v2.1');
  });

  it('says what the catalog has when nothing matches', () => {
    expect(() => computeEndpoint(catalog, 'admin', 'R1', 'c')).toThrow(/no compute endpoint \(interface admin, region R1\)/);
    let error: unknown;
    try {
      computeEndpoint(catalog.slice(0, 1), 'public', undefined, 'c');
    } catch (err) {
      error = err;
    }
    expect(describeError(error)).toContain('this cloud offers no Nova');
  });
});

describe('token lifetime', () => {
  it('renews a tenth before expiry, at most a minute early, measured on the server clock', () => {
    const issued = '2030-01-01T00:00:00.000000Z';
    expect(renewTime(issued, '2030-01-01T01:00:00.000000Z', 1_000)).toBe(1_000 + 3_600_000 - 60_000);
    expect(renewTime(issued, '2030-01-01T00:00:10.000000Z', 1_000)).toBe(1_000 + 10_000 - 1_000);
  });
});

describe('KeystoneSession against the fixture', () => {
  let fixture: OpenStackFixture;
  beforeAll(async () => {
    fixture = await startOpenStackFixture();
  });
  afterAll(() => fixture.close());

  it('reuses one token until it nearly expires, then gets a new one', async () => {
    let now = Date.now();
    const session = new KeystoneSession(passwordCloud(fixture.authUrl), NO_TLS, () => now);
    const before = fixture.count('keystone');
    const first = await session.token(signal());
    expect((await session.token(signal())).value).toBe(first.value);
    expect(fixture.count('keystone') - before).toBe(1);
    now += 3_600_000 - 59_000; // inside the last minute of the hour the fixture grants
    const second = await session.token(signal());
    expect(second.value).not.toBe(first.value);
    expect(fixture.count('keystone') - before).toBe(2);
  });

  it('shares one request between callers asking at the same time', async () => {
    const session = new KeystoneSession(passwordCloud(fixture.authUrl), NO_TLS);
    const before = fixture.count('keystone');
    const tokens = await Promise.all([session.token(signal()), session.token(signal()), session.token(signal())]);
    expect(new Set(tokens.map((t) => t.value)).size).toBe(1);
    expect(fixture.count('keystone') - before).toBe(1);
  });

  it('fetches a new token after invalidate', async () => {
    const session = new KeystoneSession(passwordCloud(fixture.authUrl), NO_TLS);
    const first = await session.token(signal());
    session.invalidate(first);
    expect((await session.token(signal())).value).not.toBe(first.value);
  });

  it("reports bad credentials with Keystone's message and no password", async () => {
    const session = new KeystoneSession(passwordCloud(fixture.authUrl, 'wrong-password-123'), NO_TLS);
    const error = await session.token(signal()).catch((err: unknown) => err);
    const text = describeError(error);
    expect(text).toContain('Keystone refused the credentials of cloud "fx": The request you have made requires authentication');
    expect(text).not.toContain('wrong-password-123');
  });

  it('logs in with an application credential', async () => {
    const cloud: CloudConfig = {
      ...passwordCloud(fixture.authUrl),
      method: 'application_credential',
      auth: {
        authUrl: `${fixture.authUrl}/v3`,
        applicationCredentialId: FIXTURE_APP_CREDENTIAL.id,
        applicationCredentialSecret: FIXTURE_APP_CREDENTIAL.secret,
      },
    };
    const token = await new KeystoneSession(cloud, NO_TLS).token(signal());
    expect(computeEndpoint(token.catalog, 'public', undefined, 'fx')).toBe(fixture.computeUrl);
  });
});
