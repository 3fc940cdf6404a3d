import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { runVconsole, startVconsole } from '../support/cli.js';
import { it } from '../support/fixtures.js';

/** What a terminal would obey: the escape that starts a sequence and the bell. */
const ESC = '\u001b';
const BEL = '\u0007';
const HOSTILE = `vm${ESC}[31mRED${BEL}`;
const SHOWN = 'vm\\e[31mRED\\x07';

function expectNothingObeyed(...outputs: string[]) {
  for (const text of outputs) {
    expect(text).not.toContain(ESC);
    expect(text).not.toContain(BEL);
  }
}

describe('names with control characters are printed, never obeyed', () => {
  it('in the error line of a bad target', async () => {
    const result = await runVconsole(['proxy', HOSTILE]);
    expect(result.code).toBe(2);
    expectNothingObeyed(result.stderr, result.stdout);
    expect(result.stderr).toContain(`"${SHOWN}"`);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('in the stack traces of --verbose', async () => {
    const result = await runVconsole(['--verbose', 'proxy', HOSTILE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\n\s+at /);
    expectNothingObeyed(result.stderr, result.stdout);
  });

  it('in commander usage errors, on vconsole error line', async () => {
    const result = await runVconsole(['proxy', 'demo:a', `--${HOSTILE}`]);
    expect(result.code).toBe(2);
    expectNothingObeyed(result.stderr);
    expect(result.stderr).toBe(`vconsole: unknown option '--${SHOWN}'\n`);
  });

  it('in the command line `viewers` shows for a viewer path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-safety-viewer-'));
    try {
      const viewer = path.join(dir, HOSTILE, 'vncviewer');
      fs.mkdirSync(path.dirname(viewer));
      fs.writeFileSync(viewer, '#!/bin/sh\necho "TigerVNC Viewer 1.13.1"\n', { mode: 0o755 });
      const result = await runVconsole(['viewers', '--viewer', viewer]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expectNothingObeyed(result.stdout);
      expect(result.stdout).toContain(`${dir}/${SHOWN}/vncviewer`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in the log lines and the JSON port line of a unix socket target', async ({ vconsole }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-safety-'));
    try {
      const target = `unix://${dir}/${HOSTILE}.sock`;
      // A socket while vconsole checks it, gone when the client's dial comes: an error to log.
      const server = net.createServer().listen(`${dir}/${HOSTILE}.sock`);
      await once(server, 'listening');
      const proxy = vconsole.start(['proxy', target]);
      const [line] = await proxy.jsonLines(1);
      await new Promise((resolve) => server.close(resolve));
      // JSON.stringify escapes control characters; parsing gives the name back whole.
      expect(line.target).toBe(`unix://${dir}/${HOSTILE}.sock`);
      const client = net.connect(line.port as number, '127.0.0.1');
      client.on('error', () => {});
      await proxy.waitForStderr(/error: .*no such file/);
      client.destroy();
      expectNothingObeyed(proxy.stdout(), proxy.stderr());
      // The temp dir's random name may be masked as a token would be: the file name is the point.
      expect(proxy.stderr()).toMatch(/^\[unix:\/\/\/\S+\/vm\\e\[31mRED\\x07\.sock\] /m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('names from a cloud API in list', () => {
  let openstack: OpenStackFixture;
  let dir: string;
  beforeAll(async () => {
    openstack = await startOpenStackFixture({
      servers: [{ id: 'c0ffee00-0000-4000-8000-000000000001', name: `evil${ESC}]0;pwned${BEL}`, status: 'ACTIVE' }],
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-safety-os-'));
    const auth = `auth_url: ${openstack.authUrl}\n      username: ${FIXTURE_USER.name}\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default`;
    fs.writeFileSync(path.join(dir, 'clouds.yaml'), `clouds:\n  fixture:\n    auth:\n      ${auth}\n`);
  });
  afterAll(async () => {
    await openstack?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({ OS_CLIENT_CONFIG_FILE: path.join(dir, 'clouds.yaml'), HOME: dir, OS_CLOUD: 'fixture' });

  it('shows a server name with an escape sequence as text in the table', async () => {
    const result = await runVconsole(['list', '--provider', 'openstack'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectNothingObeyed(result.stdout);
    expect(result.stdout).toMatch(/openstack:evil\\e\]0;pwned\\x07\s+ACTIVE\s+yes/);
  });

  it('escapes it in --json, which parses back to the real name', async () => {
    const result = await runVconsole(['list', '--provider', 'openstack', '--json'], env());
    expect(result.code).toBe(0);
    expectNothingObeyed(result.stdout);
    const [vm] = JSON.parse(result.stdout) as { name: string }[];
    expect(vm.name).toBe(`evil${ESC}]0;pwned${BEL}`);
  });
});

describe('echoed input is bounded', () => {
  it('a 10 KB demo name gives one short line naming the real limit, exit 2', async () => {
    const result = await runVconsole(['proxy', `demo:${'a'.repeat(10_000)}`]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(Buffer.byteLength(result.stderr)).toBeLessThan(300);
    expect(result.stderr).toMatch(/10000 characters, at most 63/);
  });

  const HUGE = 'a'.repeat(10_240);
  function expectOneShortUsageLine(result: { code: number | null; stdout: string; stderr: string }) {
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(Buffer.byteLength(result.stderr)).toBeLessThan(300);
  }

  it('a 10 KB bare KubeVirt name gives one short line, exit 2', async () => {
    const result = await runVconsole(['proxy', HUGE]);
    expectOneShortUsageLine(result);
    expect(result.stderr).toMatch(/^vconsole: bad KubeVirt target "a+\.\.\."; .*at most 253/);
  });

  it('a 10 KB tcp:// target gives one short line, exit 2', async () => {
    const result = await runVconsole(['proxy', `tcp://${HUGE}:5900`]);
    expectOneShortUsageLine(result);
    expect(result.stderr).toMatch(/the host is longer than 253 characters/);
  });

  it('a 10 KB alias name or target in the config gives one short line, exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-alias-'));
    try {
      const badName = path.join(dir, 'bad-name.yaml');
      fs.writeFileSync(badName, `aliases:\n  ? ${HUGE}\n  : 5\n`);
      const named = await runVconsole(['--config', badName, 'proxy', 'x']);
      expectOneShortUsageLine(named);
      expect(named.stderr).toMatch(/alias "a+\.\.\." must name a target/);

      const badTarget = path.join(dir, 'bad-target.yaml');
      fs.writeFileSync(badTarget, `aliases:\n  big: tcp://${HUGE}:1\n`);
      const resolved = await runVconsole(['--config', badTarget, 'proxy', 'big']);
      expectOneShortUsageLine(resolved);
      expect(resolved.stderr).toMatch(/bad tcp target "tcp:\/\/a+\.\.\."/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a reader that goes away', () => {
  it('--help into a pipe closed at once (| head) exits 0 without an EPIPE stack trace', async () => {
    const child = startVconsole(['proxy', '--help']);
    child.process.stdout.destroy();
    const status = await child.exit();
    expect(status.code, child.stderr()).toBe(0);
    expect(child.stderr()).not.toMatch(/EPIPE|Unhandled/);
  });
});
