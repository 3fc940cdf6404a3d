import { appendFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OpenStackFixture } from '../../fixtures/openstack-api.js';
import type { Websockify } from './websockify.js';

export interface OpenstackWithWebsockify {
  fixture: OpenStackFixture;
  /** `vconsole` arguments that pick the cloud: `--cloud e2e`. */
  args: string[];
  /** OS_CLIENT_CONFIG_FILE pointing at the clouds.yaml written for the fixture. */
  env: NodeJS.ProcessEnv;
  /** Every secret vconsole must never print: password, Keystone and console tokens. */
  secrets(): string[];
  close(): Promise<void>;
}

/**
 * The Keystone/Nova fixture handing out console URLs that point at a real websockify: every
 * console token Nova issues is appended to websockify's token file (`TOKEN: 127.0.0.1:PORT`,
 * the TokenFile plugin reads the file on every connection), routed to `vncPort` (a QEMU; no
 * VNC console when undefined), serial tokens to `serialPort`, SPICE tokens to `spicePort`
 * (nova-spicehtml5proxy is the same websockify core; its URL is a `spice_auto.html` page).
 * The fixture does not say which server a token is for, so every server's console leads
 * to the same VM. vconsole finds the cloud the way the openstack CLI does: a clouds.yaml
 * named by $OS_CLIENT_CONFIG_FILE and `--cloud`.
 */
export async function startOpenstackWithWebsockify(
  dir: string,
  websockify: Websockify,
  vncPort: number | undefined,
  urlStyle: 'vnc_lite' | 'vnc_auto',
  /** A cloud that serves serial consoles (nova-serialproxy, also websockify) leading to this port. */
  serialPort?: number,
  /** A cloud that serves SPICE consoles (nova-spicehtml5proxy) leading to this port. */
  spicePort?: number,
): Promise<OpenstackWithWebsockify> {
  const { startOpenStackFixture } = await import('../../fixtures/openstack-api.js');
  const ports = { novnc: vncPort, serial: serialPort, 'spice-html5': spicePort } as const;
  const fixture = await startOpenStackFixture({
    consoleTypes: (['novnc', 'serial', 'spice-html5'] as const).filter((type) => ports[type] !== undefined),
    // Written before Nova answers, so the token is known by the time vconsole dials websockify.
    onConsoleToken: (token, type) => appendFileSync(websockify.tokenFile, `${token}: 127.0.0.1:${ports[type]}\n`),
    consoleUrlFor: (token, type) =>
      type === 'serial'
        ? websockify.url(token)
        : type === 'spice-html5'
          ? `http://127.0.0.1:${websockify.port}/spice_auto.html?token=${token}`
          : urlStyle === 'vnc_auto'
            ? `http://127.0.0.1:${websockify.port}/vnc_auto.html?token=${token}`
            : `http://127.0.0.1:${websockify.port}/vnc_lite.html?path=${encodeURIComponent(`?token=${token}`)}`,
  });
  const cloudsFile = await writeFixtureClouds(dir, fixture);
  return {
    fixture,
    ...fixtureCloudArgs(dir, cloudsFile),
    secrets: () => fixture.secrets(),
    close: () => fixture.close(),
  };
}

/**
 * Writes DIR/clouds.yaml naming the fixture's Keystone as the cloud `e2e`, with the fixture
 * user's password (0600, as the openstack CLI expects); returns its path.
 */
export async function writeFixtureClouds(dir: string, fixture: OpenStackFixture): Promise<string> {
  const { FIXTURE_PROJECT, FIXTURE_USER } = await import('../../fixtures/openstack-api.js');
  const cloudsFile = join(dir, 'clouds.yaml');
  await writeFile(
    cloudsFile,
    [
      'clouds:',
      '  e2e:',
      '    auth:',
      `      auth_url: ${fixture.authUrl}`,
      `      username: ${FIXTURE_USER.name}`,
      `      password: "${FIXTURE_USER.password}"`,
      `      project_name: ${FIXTURE_PROJECT.name}`,
      `      user_domain_name: ${FIXTURE_USER.domainName}`,
      `      project_domain_name: ${FIXTURE_USER.domainName}`,
      '    interface: public',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return cloudsFile;
}

/** The `vconsole` arguments and environment that pick the cloud `e2e` from `cloudsFile`. */
export function fixtureCloudArgs(dir: string, cloudsFile: string): { args: string[]; env: NodeJS.ProcessEnv } {
  return { args: ['--cloud', 'e2e'], env: { OS_CLIENT_CONFIG_FILE: cloudsFile, OS_CLIENT_SECURE_FILE: join(dir, 'no-secure.yaml') } };
}
