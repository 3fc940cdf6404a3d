import { describe, expect, it, vi } from 'vitest';
import { UsageError, describeError } from '../../errors.js';
import { failure } from '../../../test/support/streams.js';
import { loadCloudConfig, type CloudConfig, type ConfigSources } from './config.js';
import { trustCloud } from './untrusted-cloud.js';

const HOME = '/home/ada';
const CWD = '/tmp/cloned-repo';
const OWN = `${HOME}/.config/openstack`;

function sources(files: Record<string, string>, env: Record<string, string> = {}, cwd = CWD): ConfigSources {
  return { env, readFile: (f) => files[f], homeDir: HOME, cwd };
}

const cloud = (authUrl: string, extra = '') =>
  `clouds:\n  prod:\n    auth:\n      auth_url: ${authUrl}\n      username: ada\n      project_name: ops\n${extra}`;
const PLANTED = cloud('http://evil.example:8080/v3');
const MINE = cloud('https://keystone.corp.example/v3');
const PASSWORD = 'clouds:\n  prod:\n    auth:\n      password: ada-secret\n';

describe('a clouds.yaml found only in the current directory', () => {
  it("gets no password from the user's own secure.yaml without a yes", () => {
    const config = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: PLANTED, [`${OWN}/secure.yaml`]: PASSWORD }), { cloud: 'prod' });
    expect(config.borrowed).toEqual({ file: `${CWD}/clouds.yaml`, secret: `password from ${OWN}/secure.yaml` });
  });

  it('nor from OS_PASSWORD, nor an application credential secret from the environment', () => {
    const password = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: PLANTED }, { OS_CLOUD: 'prod', OS_PASSWORD: 'x' }));
    expect(password.borrowed?.secret).toBe('password from OS_PASSWORD');
    const planted = `clouds:\n  prod:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: http://evil.example/v3\n      application_credential_id: ac-1\n`;
    const credential = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: planted }, { OS_APPLICATION_CREDENTIAL_SECRET: 's' }), {
      cloud: 'prod',
    });
    expect(credential.borrowed?.secret).toBe('application credential secret from OS_APPLICATION_CREDENTIAL_SECRET');
  });

  it('is used as it is with its own password, or one from a secure.yaml beside it', () => {
    const inline = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: cloud('http://lab/v3', '      password: own\n') }), { cloud: 'prod' });
    expect(inline.borrowed).toBeUndefined();
    const beside = loadCloudConfig(sources({ [`${CWD}/clouds.yaml`]: PLANTED, [`${CWD}/secure.yaml`]: PASSWORD }), { cloud: 'prod' });
    expect(beside.borrowed).toBeUndefined();
  });

  it('is trusted when the user names it, or when the current directory is their config directory', () => {
    const named = sources(
      { [`${CWD}/clouds.yaml`]: PLANTED, [`${OWN}/secure.yaml`]: PASSWORD },
      { OS_CLIENT_CONFIG_FILE: `${CWD}/clouds.yaml` },
    );
    expect(loadCloudConfig(named, { cloud: 'prod' }).borrowed).toBeUndefined();
    const own = sources({ [`${OWN}/clouds.yaml`]: MINE, [`${OWN}/secure.yaml`]: PASSWORD }, {}, OWN);
    expect(loadCloudConfig(own, { cloud: 'prod' }).borrowed).toBeUndefined();
  });

  it('borrows nothing when OS_AUTH_URL sends the password to the address of the user', () => {
    const files = { [`${CWD}/clouds.yaml`]: PLANTED, [`${OWN}/secure.yaml`]: PASSWORD };
    const config = loadCloudConfig(sources(files, { OS_AUTH_URL: 'https://keystone.corp.example/v3' }), { cloud: 'prod' });
    expect(config.borrowed).toBeUndefined();
  });
});

describe('a secure.yaml found only in the current directory', () => {
  it("may not move the user's own cloud elsewhere, nor turn its TLS check off", () => {
    const moved = loadCloudConfig(
      sources({
        [`${OWN}/clouds.yaml`]: cloud('https://keystone.corp.example/v3', '      password: mine\n'),
        [`${CWD}/secure.yaml`]: PLANTED,
      }),
      { cloud: 'prod' },
    );
    expect(moved.auth.authUrl).toBe('http://evil.example:8080/v3');
    expect(moved.borrowed).toEqual({ file: `${CWD}/secure.yaml`, secret: `password from ${OWN}/clouds.yaml` });
    // openstacksdk reads the first secure.yaml only: the one in the current directory hides the user's.
    const unchecked = loadCloudConfig(
      sources({
        [`${OWN}/clouds.yaml`]: cloud('https://k/v3', '      password: mine\n'),
        [`${CWD}/secure.yaml`]: 'clouds:\n  prod:\n    verify: false\n',
      }),
      { cloud: 'prod' },
    );
    expect(unchecked.insecure).toBe(true);
    expect(unchecked.borrowed?.file).toBe(`${CWD}/secure.yaml`);
    // --insecure on the command line is the user's own choice.
    const flagged = loadCloudConfig(
      sources({
        [`${OWN}/clouds.yaml`]: cloud('https://k/v3', '      password: p\n'),
        [`${CWD}/secure.yaml`]: 'clouds:\n  prod:\n    verify: false\n',
      }),
      { cloud: 'prod', insecure: true },
    );
    expect(flagged.borrowed).toBeUndefined();
  });
});

describe('a Tab (questions: background)', () => {
  it('does not even read a file found only in the current directory: the user’s own are read instead', () => {
    const read: string[] = [];
    const files: Record<string, string> = {
      [`${CWD}/clouds.yaml`]: PLANTED,
      [`${OWN}/clouds.yaml`]: MINE,
      [`${OWN}/secure.yaml`]: PASSWORD,
    };
    const config = loadCloudConfig(
      { env: { OS_CLOUD: 'prod' }, homeDir: HOME, cwd: CWD, readFile: (f) => (read.push(f), files[f]) },
      { questions: 'background' },
    );
    expect(read.filter((f) => f.startsWith(`${CWD}/`))).toEqual([]);
    expect(config.auth.authUrl).toBe('https://keystone.corp.example/v3');
    expect(config.borrowed).toBeUndefined();
  });

  it('still reads the file OS_CLIENT_CONFIG_FILE names, wherever it is', () => {
    const files = { [`${CWD}/clouds.yaml`]: PLANTED, [`${OWN}/secure.yaml`]: PASSWORD };
    const config = loadCloudConfig(sources(files, { OS_CLIENT_CONFIG_FILE: `${CWD}/clouds.yaml` }), {
      cloud: 'prod',
      questions: 'background',
    });
    expect(config.auth.authUrl).toBe('http://evil.example:8080/v3');
  });
});

describe('trustCloud', () => {
  const planted = (): CloudConfig =>
    loadCloudConfig(
      sources({
        [`${CWD}/clouds.yaml`]: cloud('http://user:pw@evil.example:8080/v3?x=1'),
        [`${OWN}/secure.yaml`]: PASSWORD,
      }),
      { cloud: 'prod' },
    );

  it('lets a cloud that borrows nothing through without asking', async () => {
    const ask = vi.fn(() => Promise.resolve(false));
    const own = loadCloudConfig(sources({ [`${OWN}/clouds.yaml`]: MINE, [`${OWN}/secure.yaml`]: PASSWORD }), { cloud: 'prod' });
    await trustCloud(own, 'terminal', ask, new Map());
    expect(ask).not.toHaveBeenCalled();
  });

  it('asks once on the terminal, naming the file, the cloud and its address but no secret; yes lets it through', async () => {
    const ask = vi.fn((_question: string) => Promise.resolve(true));
    const asked = new Map<string, Promise<boolean>>();
    await Promise.all([trustCloud(planted(), undefined, ask, asked), trustCloud(planted(), 'terminal', ask, asked)]);
    expect(ask).toHaveBeenCalledTimes(1);
    const question = ask.mock.calls[0][0];
    expect(question).toBe(
      `vconsole: ${CWD}/clouds.yaml (found only in the current directory) sets where cloud "prod" logs in: http://evil.example:8080/v3; send your password from ${OWN}/secure.yaml there? [y/N] `,
    );
    expect(question).not.toMatch(/ada-secret|pw@|x=1/);
  });

  it('refuses on no, without a terminal, and while the TUI holds the terminal, saying what to do', async () => {
    const no = await failure(trustCloud(planted(), 'terminal', () => Promise.resolve(false), new Map()));
    expect(no).toBeInstanceOf(UsageError);
    expect(describeError(no)).toBe(
      `${CWD}/clouds.yaml (found only in the current directory) sets where cloud "prod" logs in: http://evil.example:8080/v3; your password from ${OWN}/secure.yaml was not sent; if the file is yours, name it: OS_CLIENT_CONFIG_FILE=${CWD}/clouds.yaml`,
    );
    const noTerminal = await failure(trustCloud(planted(), 'terminal', () => undefined, new Map()));
    expect(describeError(noTerminal)).toMatch(/is not sent there without your yes; if the file is yours, name it: OS_CLIENT_CONFIG_FILE=/);
    const ask = vi.fn(() => Promise.resolve(true));
    expect(await failure(trustCloud(planted(), 'none', ask, new Map()))).toBeInstanceOf(UsageError);
    expect(ask).not.toHaveBeenCalled();
  });

  it('names OS_CLIENT_SECURE_FILE when the file is a secure.yaml', async () => {
    const moved = loadCloudConfig(
      sources({ [`${OWN}/clouds.yaml`]: cloud('https://k/v3', '      password: mine\n'), [`${CWD}/secure.yaml`]: PLANTED }),
      { cloud: 'prod' },
    );
    expect(describeError(await failure(trustCloud(moved, 'terminal', () => undefined, new Map())))).toMatch(
      new RegExp(`OS_CLIENT_SECURE_FILE=${CWD}/secure\\.yaml$`),
    );
  });
});
