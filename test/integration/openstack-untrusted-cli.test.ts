// A clouds.yaml planted in the current directory (a cloned repository, a shared directory) that
// points the user's cloud `prod` at a listener of someone else's: the user's own password, from
// ~/.config/openstack/secure.yaml, must not reach it unless the user names the file
// (OS_CLIENT_CONFIG_FILE) or says yes on a terminal; a Tab never even reads the file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { VCONSOLE_BIN, runVconsole } from '../support/cli.js';
import { refreshesDone } from '../support/completion-cache.js';
import { waitFor } from '../support/wait.js';

let listener: OpenStackFixture;
let dir: string;
let home: string;
let repo: string;

beforeAll(async () => {
  listener = await startOpenStackFixture();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-planted-'));
  home = path.join(dir, 'home');
  repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(home, '.config', 'openstack'), { recursive: true });
  fs.mkdirSync(repo);
  // The user's own: the password of cloud prod.
  fs.writeFileSync(
    path.join(home, '.config', 'openstack', 'secure.yaml'),
    `clouds:\n  prod:\n    auth:\n      password: "${FIXTURE_USER.password}"\n`,
  );
  // Planted: prod's address is the listener, over plain http.
  fs.writeFileSync(
    path.join(repo, 'clouds.yaml'),
    `clouds:\n  prod:\n    auth:\n      auth_url: ${listener.authUrl}\n      username: alice\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`,
  );
});
afterAll(async () => {
  await listener?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, ...extra });
/** Run in the directory the file was planted in. */
const inRepo = () => ({ cwd: repo });

function expectRefusal(result: { code: number | null; stderr: string; stdout: string }) {
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /clouds\.yaml \(found only in the current directory\) sets where cloud "prod" logs in: http:\/\/127\.0\.0\.1:\d+\/identity/,
  );
  expect(lines[0]).toContain(`your password from ${home}/.config/openstack/secure.yaml is not sent there without your yes`);
  expect(lines[0]).toContain(`if the file is yours, name it: OS_CLIENT_CONFIG_FILE=${repo}/clouds.yaml`);
  expect(result.stderr + result.stdout).not.toContain(FIXTURE_USER.password);
}

describe('a clouds.yaml found only in the current directory', () => {
  it.each([
    ['--cloud prod', ['list', '--provider', 'openstack', '--cloud', 'prod'], {}],
    ['OS_CLOUD=prod', ['list', '--provider', 'openstack'], { OS_CLOUD: 'prod' }],
  ])('list %s: nothing reaches its listener, and one line says why and what to do', async (_how, args, extra) => {
    const before = listener.requests.length;
    expectRefusal(await runVconsole(args, env(extra), 30_000, inRepo()));
    // The listener received nothing at all: no password, no request.
    expect(listener.requests.slice(before)).toEqual([]);
  });

  it('OS_PASSWORD is the user’s too: not sent there either', async () => {
    const before = listener.requests.length;
    const result = await runVconsole(
      ['list', '--provider', 'openstack'],
      env({ OS_CLOUD: 'prod', OS_PASSWORD: FIXTURE_USER.password }),
      30_000,
      inRepo(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/your password from OS_PASSWORD is not sent there without your yes/);
    expect(listener.requests.slice(before)).toEqual([]);
  });

  it('named by OS_CLIENT_CONFIG_FILE, it is the user’s: list logs in there and lists', async () => {
    const result = await runVconsole(
      ['list', '--provider', 'openstack', '--cloud', 'prod'],
      env({ OS_CLIENT_CONFIG_FILE: './clouds.yaml' }),
      30_000,
      inRepo(),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('web-1');
  });

  it('a Tab with OS_CLOUD=prod never contacts the listener (and does, once the file is named)', async () => {
    const before = listener.requests.length;
    const tab = await runVconsole(['complete', '--', 'open', ''], env({ OS_CLOUD: 'prod' }), 30_000, inRepo());
    expect(tab.code).toBe(0);
    expect(tab.stdout + tab.stderr).not.toContain('web-1');
    // The names are listed in the background for the next Tab (the completion cache): once that is done.
    await refreshesDone(home);
    expect(listener.requests.slice(before)).toEqual([]);
    // The control: the same Tab with the file named asks the listener, so silence above is the rule's.
    const logins = listener.count('keystone', '/auth/tokens');
    await runVconsole(['complete', '--', 'open', ''], env({ OS_CLOUD: 'prod', OS_CLIENT_CONFIG_FILE: './clouds.yaml' }), 30_000, inRepo());
    await refreshesDone(home);
    expect(listener.count('keystone', '/auth/tokens')).toBeGreaterThan(logins);
  });
});

/** util-linux `script` gives vconsole a pseudo-terminal: stdin is a TTY, as on a desk. */
const hasScript = spawnSync('script', ['--version']).status === 0;
const terminals: ChildProcess[] = [];
afterEach(() => {
  while (terminals.length) terminals.pop()!.kill('SIGKILL');
});

const LIST = ['list', '--provider', 'openstack', '--cloud', 'prod'];

/** `vconsole ARGS` on a pseudo-terminal in the planted directory; `script -e` exits with vconsole's status. */
function onTerminal(
  args = LIST,
  extra: NodeJS.ProcessEnv = {},
): { screen(): string; answer(line: string): void; exit(): Promise<number | null> } {
  const command = [process.execPath, VCONSOLE_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: home, TERM: 'xterm', ...extra },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  terminals.push(child);
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return { screen: () => screen, answer: (line) => child.stdin.write(`${line}\n`), exit: () => exited };
}

describe.skipIf(!hasScript)(`on a terminal${hasScript ? '' : ' (skipped: no util-linux script for a pseudo-terminal)'}`, () => {
  it('asks, and sends nothing on no', async () => {
    const before = listener.requests.length;
    const run = onTerminal();
    await waitFor(() => /send your password from .*secure\.yaml there\? \[y\/N\]/.test(run.screen()), 'the question', 20_000);
    expect(listener.requests.slice(before)).toEqual([]);
    run.answer('n');
    expect(await run.exit()).toBe(2);
    expect(run.screen()).toMatch(/your password from .*secure\.yaml was not sent; if the file is yours, name it: OS_CLIENT_CONFIG_FILE=/);
    expect(listener.requests.slice(before)).toEqual([]);
  });

  it('a Tab asks nothing even there (a question would wait in the middle of the line) and sends nothing', async () => {
    const before = listener.requests.length;
    const tab = onTerminal(['complete', '--', 'open', ''], { OS_CLOUD: 'prod' });
    expect(await tab.exit()).toBe(0);
    expect(tab.screen()).not.toMatch(/\[y\/N\]|found only in the current directory/);
    await refreshesDone(home);
    expect(listener.requests.slice(before)).toEqual([]);
  });

  it('on yes, logs in there and lists', async () => {
    const before = listener.count('keystone', '/auth/tokens');
    const run = onTerminal();
    await waitFor(() => /\[y\/N\]/.test(run.screen()), 'the question', 20_000);
    run.answer('y');
    expect(await run.exit()).toBe(0);
    expect(run.screen()).toContain('web-1');
    expect(run.screen()).not.toContain(FIXTURE_USER.password);
    expect(listener.count('keystone', '/auth/tokens')).toBe(before + 1);
  });
});
