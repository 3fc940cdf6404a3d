import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { REPO_ROOT, VCONSOLE_BIN, runVconsole, type RunResult } from '../support/cli.js';
import { AGENT_PREAMBLE, VIA_PROTOCOL } from '../../src/via/protocol.js';

// VM names from an API (or a far vconsole) that hold what a terminal obeys: OSC 52 (writes the
// clipboard), OSC 0 (the window title), CSI 2J (clears the screen), and C1's 8-bit CSI. Every
// listing a terminal may show prints them as visible escapes; a document stays exact.

const ESC = '\u001b';
const BEL = '\u0007';
const CSI8 = '\u009b';
const CLIPBOARD = `clip${ESC}]52;c;cm0gLXJmIH4K${BEL}`;
const TITLE = `title${ESC}]0;pwned${BEL}`;
const CLEAR = `clear${ESC}[2J${ESC}[H${CSI8}2J`;
const HOSTILE = [CLIPBOARD, TITLE, CLEAR];

/** Nothing a terminal would obey: no C0 control but tab and newline, no C1 control. */
function expectNothingObeyed(result: RunResult): void {
  for (const text of [result.stdout, result.stderr]) expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

const SHOWN = ['clip\\e]52;c;cm0gLXJmIH4K\\x07', 'title\\e]0;pwned\\x07', 'clear\\e[2J\\e[H\\x9b2J'];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-hostile-names-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('OpenStack server names', () => {
  let openstack: OpenStackFixture;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    openstack = await startOpenStackFixture({
      servers: HOSTILE.map((name, i) => ({ id: `c0ffee00-0000-4000-8000-00000000000${i}`, name, status: 'ACTIVE' })),
    });
    const home = fs.mkdtempSync(path.join(dir, 'os-'));
    const auth = `auth_url: ${openstack.authUrl}\n      username: ${FIXTURE_USER.name}\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default`;
    fs.writeFileSync(path.join(home, 'clouds.yaml'), `clouds:\n  fixture:\n    auth:\n      ${auth}\n`);
    env = { OS_CLIENT_CONFIG_FILE: path.join(home, 'clouds.yaml'), HOME: home, OS_CLOUD: 'fixture' };
  });
  afterAll(() => openstack?.close());

  it('-o name prints one escaped name a line, into a pipe too', async () => {
    const result = await runVconsole(['list', '--provider', 'openstack', '-o', 'name'], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(SHOWN.map((name) => `openstack:${name}`).sort());
  });

  it.each([['table'], ['wide']])('-o %s shows them escaped', async (format) => {
    const result = await runVconsole(['list', '--provider', 'openstack', ...(format === 'wide' ? ['-o', 'wide'] : [])], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    for (const name of SHOWN) expect(result.stdout).toContain(`openstack:${name}`);
  });

  const readers: [format: string, parse: (text: string) => unknown][] = [
    ['json', (text) => JSON.parse(text)],
    ['yaml', (text) => parseYaml(text)],
  ];
  it.each(readers)('-o %s parses back to the names exactly, with no C1 control left raw', async (format, parse) => {
    const result = await runVconsole(['list', '--provider', 'openstack', '-o', format], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    const names = (parse(result.stdout) as { name: string }[]).map((vm) => vm.name);
    expect(names.sort()).toEqual([...HOSTILE].sort());
  });
});

describe('KubeVirt VMI names', () => {
  let kubevirt: KubevirtFixture;
  beforeAll(async () => {
    kubevirt = await startKubevirtFixture({ vmis: HOSTILE.map((name) => ({ namespace: 'default', name })) });
  });
  afterAll(() => kubevirt?.close());

  it.each([[['-o', 'name']], [[]]])('list %j shows them escaped', async (args) => {
    const result = await runVconsole(['list', ...args], { KUBECONFIG: kubevirt.kubeconfigPath(), HOME: dir });
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    for (const name of SHOWN) expect(result.stdout).toContain(`default/${name}`);
  });
});

describe.skipIf(process.platform === 'win32')('libvirt domain names', () => {
  it.each([[['-o', 'name']], [[]]])('list %j shows them escaped', async (args) => {
    const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
    const rows = HOSTILE.map((name, i) => ` ${i + 1}    ${name}    running\n`).join('');
    fs.writeFileSync(path.join(bin, 'virsh'), `#!/bin/sh\ncat <<'EOF'\n Id   Name   State\n--------------------\n${rows}EOF\n`, {
      mode: 0o755,
    });
    const env = { HOME: dir, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
    const result = await runVconsole(['list', '--provider', 'libvirt', ...args], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    for (const name of SHOWN) expect(result.stdout).toContain(`libvirt:${name}`);
  });
});

describe.skipIf(process.platform === 'win32')('list --via: what the far side printed', () => {
  /** An agent that answers `list` with `answer` (stdout, stderr, code), as a hostile bastion could. */
  function farAgent(name: string, answer: { stdout: string; stderr: string; code: number }): NodeJS.ProcessEnv {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const agent = path.join(dir, `${name}.mjs`);
    fs.writeFileSync(
      agent,
      [
        'const frame = (type, stream, body) => { const payload = Buffer.from(JSON.stringify(body));',
        '  const head = Buffer.alloc(9); head.writeUInt8(type, 0); head.writeUInt32BE(stream, 1); head.writeUInt32BE(payload.length, 5);',
        '  return Buffer.concat([head, payload]); };',
        `process.stdout.write(${JSON.stringify(AGENT_PREAMBLE)});`,
        `process.stdout.write(frame(1, 0, { protocol: ${VIA_PROTOCOL}, version: ${JSON.stringify(version)} }));`,
        'let input = Buffer.alloc(0);',
        "process.stdin.on('data', (chunk) => {",
        '  input = Buffer.concat([input, chunk]);',
        '  while (input.length >= 9 && input.length >= 9 + input.readUInt32BE(5)) {',
        '    const type = input.readUInt8(0); const stream = input.readUInt32BE(1); input = input.subarray(9 + input.readUInt32BE(5));',
        `    if (type === 2) process.stdout.write(frame(3, stream, { ok: true, result: ${JSON.stringify(answer)} }));`,
        '  }',
        '});',
        "process.stdin.on('end', () => process.exit(0));",
      ].join('\n'),
    );
    const ssh = path.join(dir, `${name}-ssh.sh`);
    fs.writeFileSync(ssh, `#!/bin/sh\nexec '${process.execPath}' '${agent}'\n`, { mode: 0o755 });
    return { HOME: dir, VCONSOLE_SSH_COMMAND: ssh, VCONSOLE_VIA_COMMAND: `${process.execPath} ${VCONSOLE_BIN}` };
  }

  it('a table and its stderr lines are shown with their escapes visible', async () => {
    const env = farAgent('table', {
      stdout: `TARGET  STATE\n${HOSTILE.map((name) => `${name}  running`).join('\n')}\n`,
      stderr: `no VMs found: searched ${TITLE}\n`,
      code: 0,
    });
    const result = await runVconsole(['list', '--via', 'bastion'], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    for (const name of SHOWN) expect(result.stdout).toContain(`${name}  running\n`);
    expect(result.stderr).toBe(`no VMs found: searched ${SHOWN[1]}\n`);
  });

  it('-o name is shown escaped', async () => {
    const env = farAgent('name', { stdout: `${HOSTILE.join('\n')}\n`, stderr: '', code: 0 });
    const result = await runVconsole(['list', '-o', 'name', '--via', 'bastion'], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    expect(result.stdout).toBe(`${SHOWN.join('\n')}\n`);
  });

  it('-o json is parsed and written again: exact, with its C1 controls escaped', async () => {
    const vms = HOSTILE.map((name) => ({ target: name, name }));
    // JSON.stringify leaves U+009B raw; the far side's document is valid JSON as sent.
    const env = farAgent('json', { stdout: JSON.stringify(vms), stderr: '', code: 0 });
    const result = await runVconsole(['list', '-o', 'json', '--via', 'bastion'], env);
    expect(result.code, result.stderr).toBe(0);
    expectNothingObeyed(result);
    expect(JSON.parse(result.stdout)).toEqual(vms);
  });
});
