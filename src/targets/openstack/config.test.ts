import { describe, expect, it } from 'vitest';
import { UsageError, describeError } from '../../errors.js';
import { configFiles, hasCloudConfiguration, loadCloudConfig, type ConfigSources } from './config.js';

const HOME = '/home/ada';
const CWD = '/work/here';

function sources(files: Record<string, string>, env: Record<string, string> = {}): ConfigSources {
  return { env, readFile: (f) => files[f], homeDir: HOME, cwd: CWD };
}

const CLOUDS = `
clouds:
  prod:
    auth:
      auth_url: https://keystone.prod.example:5000/v3
      username: ada
      project_name: ops
      user_domain_name: Corp
      project_domain_name: Corp
    region_name: RegionTwo
    interface: internal
    cacert: /etc/ssl/prod-ca.pem
  lab:
    auth:
      auth_url: http://lab.example/identity
      application_credential_id: ac-1
    auth_type: v3applicationcredential
    verify: false
`;
const SECURE = `
clouds:
  prod:
    auth:
      password: prod-secret
  lab:
    auth:
      application_credential_secret: lab-secret
`;

describe('config search path', () => {
  it('looks in ./, ~/.config/openstack, /etc/openstack, with $OS_CLIENT_CONFIG_FILE first', () => {
    const list = configFiles(sources({}, { OS_CLIENT_CONFIG_FILE: '/tmp/mine.yaml' }), 'clouds');
    expect(list[0]).toBe('/tmp/mine.yaml');
    expect(list.filter((f) => f.endsWith('clouds.yaml'))).toEqual([
      `${CWD}/clouds.yaml`,
      `${HOME}/.config/openstack/clouds.yaml`,
      '/etc/openstack/clouds.yaml',
    ]);
    expect(list).toContain(`${CWD}/clouds.yml`);
    expect(configFiles(sources({}), 'secure')[0]).toBe(`${CWD}/secure.yaml`);
  });

  it('uses the first clouds.yaml found: the current directory beats the home directory', () => {
    const cloud = (url: string) => `clouds:\n  c:\n    auth: {auth_url: ${url}, username: u, password: p, project_name: x}\n`;
    const config = loadCloudConfig(
      sources({ [`${CWD}/clouds.yaml`]: cloud('http://here'), [`${HOME}/.config/openstack/clouds.yaml`]: cloud('http://home') }),
    );
    expect(config.auth.authUrl).toBe('http://here');
    expect(config.files).toEqual([`${CWD}/clouds.yaml`]);
  });

  it('$OS_CLIENT_CONFIG_FILE beats every directory', () => {
    const cloud = (url: string) => `clouds:\n  c:\n    auth: {auth_url: ${url}, username: u, password: p, project_name: x}\n`;
    const config = loadCloudConfig(
      sources(
        { [`${CWD}/clouds.yaml`]: cloud('http://here'), '/opt/c.yaml': cloud('http://override') },
        { OS_CLIENT_CONFIG_FILE: '/opt/c.yaml' },
      ),
    );
    expect(config.auth.authUrl).toBe('http://override');
  });
});

describe('clouds.yaml and secure.yaml', () => {
  const files = { [`${HOME}/.config/openstack/clouds.yaml`]: CLOUDS, '/etc/openstack/secure.yaml': SECURE };

  it('merges the password from secure.yaml into the chosen cloud', () => {
    const config = loadCloudConfig(sources(files), { cloud: 'prod' });
    expect(config).toMatchObject({
      name: 'prod',
      method: 'password',
      regionName: 'RegionTwo',
      interface: 'internal',
      cacert: '/etc/ssl/prod-ca.pem',
      insecure: false,
    });
    expect(config.auth).toMatchObject({
      username: 'ada',
      password: 'prod-secret',
      userDomainName: 'Corp',
      projectName: 'ops',
      projectDomainName: 'Corp',
    });
    expect(config.files).toEqual([`${HOME}/.config/openstack/clouds.yaml`, '/etc/openstack/secure.yaml']);
  });

  it('reads an application credential and verify: false', () => {
    const config = loadCloudConfig(sources(files), { cloud: 'lab' });
    expect(config.method).toBe('application_credential');
    expect(config.auth).toMatchObject({ applicationCredentialId: 'ac-1', applicationCredentialSecret: 'lab-secret' });
    expect(config.insecure).toBe(true);
    expect(config.interface).toBe('public');
  });

  it('picks the cloud from $OS_CLOUD when --cloud is absent, and --cloud wins over it', () => {
    expect(loadCloudConfig(sources(files, { OS_CLOUD: 'lab' })).name).toBe('lab');
    expect(loadCloudConfig(sources(files, { OS_CLOUD: 'lab' }), { cloud: 'prod' }).name).toBe('prod');
  });

  it('names the known clouds when the asked one is missing', () => {
    let error: unknown;
    try {
      loadCloudConfig(sources(files), { cloud: 'nope' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toBe(`cloud "nope" not found in ${HOME}/.config/openstack/clouds.yaml; known clouds: prod, lab`);
  });

  it('asks to pick one when several clouds exist and nothing chooses', () => {
    expect(() => loadCloudConfig(sources(files))).toThrow(/several clouds/);
  });

  it('takes the only cloud without being told', () => {
    const only = `clouds:\n  solo:\n    auth: {auth_url: http://k, username: u, password: p, project_id: abc}\n`;
    expect(loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: only })).name).toBe('solo');
  });

  it('takes the first of a regions list and accepts dashed keys', () => {
    const yaml = `clouds:\n  r:\n    regions: [East, West]\n    auth:\n      auth-url: http://k\n      user-name: u\n      password: p\n      project-name: x\n`;
    const config = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: yaml }));
    expect(config.regionName).toBe('East');
    expect(config.auth.username).toBe('u');
  });

  it('says which file has broken YAML', () => {
    expect(() => loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: 'clouds: [unclosed' }))).toThrow(`cannot parse ${CWD}/clouds.yaml`);
  });
});

describe('OS_* variables', () => {
  const openrc = {
    OS_AUTH_URL: 'https://keystone.example/v3',
    OS_USERNAME: 'bob',
    OS_PASSWORD: 'env-secret',
    OS_PROJECT_NAME: 'web',
    OS_USER_DOMAIN_NAME: 'Default',
    OS_PROJECT_DOMAIN_ID: 'default',
    OS_REGION_NAME: 'RegionOne',
    OS_INTERFACE: 'internalURL',
    OS_CACERT: '/etc/ca.pem',
  };

  it('make a cloud named envvars when no clouds.yaml exists', () => {
    const config = loadCloudConfig(sources({}, openrc));
    expect(config).toMatchObject({
      name: 'envvars',
      method: 'password',
      regionName: 'RegionOne',
      interface: 'internal',
      cacert: '/etc/ca.pem',
    });
    expect(config.auth).toMatchObject({
      authUrl: 'https://keystone.example/v3',
      username: 'bob',
      password: 'env-secret',
      projectName: 'web',
      userDomainName: 'Default',
      projectDomainId: 'default',
    });
  });

  it('beat clouds.yaml when there are config files too, unless a cloud is named', () => {
    const files = { [`${CWD}/clouds.yaml`]: CLOUDS };
    expect(loadCloudConfig(sources(files, openrc)).name).toBe('envvars');
  });

  it('override the named cloud, as the openstack CLI does with OS_* defaults', () => {
    const files = { [`${CWD}/clouds.yaml`]: CLOUDS };
    const config = loadCloudConfig(sources(files, { OS_CLOUD: 'prod', OS_PASSWORD: 'from-env', OS_REGION_NAME: 'RegionThree' }));
    expect(config.name).toBe('prod');
    expect(config.auth.password).toBe('from-env');
    expect(config.regionName).toBe('RegionThree');
    expect(config.auth.username).toBe('ada');
  });

  it('read user and project IDs, application credentials and OS_INSECURE', () => {
    const config = loadCloudConfig(
      sources(
        {},
        {
          OS_AUTH_URL: 'http://k:5000',
          OS_AUTH_TYPE: 'v3applicationcredential',
          OS_APPLICATION_CREDENTIAL_NAME: 'ci',
          OS_APPLICATION_CREDENTIAL_SECRET: 's3',
          OS_USER_ID: 'u-1',
          OS_INSECURE: 'true',
        },
      ),
    );
    expect(config.method).toBe('application_credential');
    expect(config.auth).toMatchObject({ applicationCredentialName: 'ci', userId: 'u-1', applicationCredentialSecret: 's3' });
    expect(config.insecure).toBe(true);
  });

  it('give a username without domain the default domain, as osc-lib does', () => {
    const config = loadCloudConfig(sources({}, { OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'x' }));
    expect(config.auth.userDomainId).toBe('default');
    expect(config.auth.projectDomainId).toBe('default');
  });

  it('ignore a lone OS_REGION_NAME (it selects, it does not describe a cloud)', () => {
    expect(() => loadCloudConfig(sources({}, { OS_REGION_NAME: 'R' }))).toThrow(/no OpenStack credentials/);
  });

  it('let the command line override region, interface, CA and TLS checks', () => {
    const config = loadCloudConfig(sources({}, openrc), { region: 'R9', interface: 'admin', ca: '/x/ca.pem', insecure: true });
    expect(config).toMatchObject({ regionName: 'R9', interface: 'admin', cacert: '/x/ca.pem', insecure: true });
  });
});

describe('missing pieces', () => {
  it.each([
    [{ OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'x' }, /has no auth_url/],
    [{ OS_AUTH_URL: 'http://k', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'x' }, /has no username/],
    [{ OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PROJECT_NAME: 'x' }, /has no password/],
    [{ OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p' }, /names no project/],
    [{ OS_AUTH_URL: 'http://k', OS_AUTH_TYPE: 'v3oidcpassword', OS_USERNAME: 'u' }, /auth_type "v3oidcpassword".*not support/],
    [
      { OS_AUTH_URL: 'http://k', OS_APPLICATION_CREDENTIAL_SECRET: 's', OS_AUTH_TYPE: 'v3applicationcredential' },
      /no application_credential_id/,
    ],
  ])('are UsageErrors that say what to set (%#)', (env, message) => {
    expect(() => loadCloudConfig(sources({}, env as Record<string, string>))).toThrow(message);
  });

  it('no config at all says where clouds.yaml goes', () => {
    expect(() => loadCloudConfig(sources({}))).toThrow(UsageError);
  });
});

describe('hasCloudConfiguration (list with no provider named)', () => {
  it('is true for --cloud, $OS_CLOUD, OS_* variables that describe a cloud, or a clouds.yaml where openstacksdk looks', () => {
    expect(hasCloudConfiguration(sources({}))).toBe(false);
    expect(hasCloudConfiguration(sources({}, { OS_REGION_NAME: 'r1' }))).toBe(false);
    expect(hasCloudConfiguration(sources({}), { cloud: 'prod' })).toBe(true);
    expect(hasCloudConfiguration(sources({}, { OS_CLOUD: 'prod' }))).toBe(true);
    expect(hasCloudConfiguration(sources({}, { OS_AUTH_URL: 'https://keystone.example:5000/v3' }))).toBe(true);
    expect(hasCloudConfiguration(sources({ [`${HOME}/.config/openstack/clouds.yaml`]: CLOUDS }))).toBe(true);
  });
});
