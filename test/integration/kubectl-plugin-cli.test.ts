import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { VCONSOLE_BIN, runVconsole } from '../support/cli.js';

// vconsole as kubectl runs a plugin: a link named kubectl-vconsole on PATH, run with the flags as
// the user typed them after `kubectl vconsole`, kubectl's global flags before the verb included
// (kubectl 1.32 was seen to find and run it so: `kubectl plugin list`, `kubectl vconsole ...`).
describe('vconsole as `kubectl vconsole`', () => {
  let dir: string;
  let plugin: string;
  let kubevirt: KubevirtFixture;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-kubectl-plugin-'));
    plugin = join(dir, 'kubectl-vconsole');
    await symlink(VCONSOLE_BIN, plugin);
    kubevirt = await startKubevirtFixture({
      vmis: [
        { namespace: 'prod', name: 'db-1' },
        { namespace: 'default', name: 'web-1' },
      ],
    });
  });
  afterAll(async () => {
    await kubevirt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("takes kubectl's global flags before the verb, and names itself kubectl vconsole", async () => {
    const env = { HOME: dir, KUBECONFIG: join(dir, 'none') };
    const listed = await runVconsole(['--kubeconfig', kubevirt.kubeconfigPath(), '-n', 'prod', 'list', '-o', 'name'], env, 30_000, {
      bin: plugin,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual(['prod/db-1']);
    const help = await runVconsole(['--help'], env, 30_000, { bin: plugin });
    expect(help.stdout).toMatch(/^Usage: kubectl vconsole \[options\] \[command\]/);
  });

  it('refuses a flag no command has in one line, before the verb as after it', async () => {
    const result = await runVconsole(['--kubeconfg', 'x', 'list'], { HOME: dir }, 30_000, { bin: plugin });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/unknown option '--kubeconfg'/);
  });

  it('lists with -o jsonpath= and -o custom-columns= as kubectl spells them; a bad template is one line, exit 2', async () => {
    const env = { HOME: dir, KUBECONFIG: kubevirt.kubeconfigPath() };
    const range = String.raw`{range .items[*]}{.target}{"\t"}{.state}{"\n"}{end}`;
    const jsonpath = await runVconsole(['list', '-A', '-o', `jsonpath=${range}`], env);
    expect(jsonpath.code, jsonpath.stderr).toBe(0);
    expect(jsonpath.stdout).toBe('default/web-1\tRunning\nprod/db-1\tRunning\n');
    const columns = await runVconsole(['-n', 'prod', 'list', '-o', 'custom-columns=VM:.name,NS:.namespace'], env);
    expect(columns.code, columns.stderr).toBe(0);
    expect(columns.stdout).toBe('VM     NS\ndb-1   prod\n');
    const bad = await runVconsole(['list', '-o', 'jsonpath={range .items[*]}{.target}'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/bad jsonpath template .*\{range\} without \{end\}/);
  });
});
