import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { VCONSOLE_BIN, runVconsole } from '../support/cli.js';
import { findExecutable } from '../support/programs.js';

const kubectl = findExecutable('kubectl');

/** `kubectl ARGS`: its exit code and output. */
function runKubectl(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// vconsole as kubectl runs a plugin: a link named kubectl-vconsole on PATH, run with the flags as
// the user typed them after `kubectl vconsole`, kubectl's global flags before the verb included;
// and through a real kubectl where one is installed. Not from the package list: on this kind of
// machine the image's own kubectl owns /usr/bin/kubectl, and Debian's kubernetes-client would
// collide with it, so a machine without kubectl skips that test, saying so in its title.
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

  it("bounds each API request by kubectl's --request-timeout, and refuses one that is not a duration", async () => {
    // An API server that takes connections and never answers.
    const silent = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const kubeconfig = join(dir, 'silent-kubeconfig');
      const server = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      await writeFile(
        kubeconfig,
        `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
      );
      const result = await runVconsole(['--request-timeout', '1s', 'list', '--kubeconfig', kubeconfig], { HOME: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/did not answer within 1 s/);
      const bad = await runVconsole(['list', '--kubeconfig', kubeconfig, '--request-timeout', 'soon'], { HOME: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/invalid --request-timeout "soon"/);
    } finally {
      silent.close();
    }
  });

  it.skipIf(!kubectl)(`runs as a plugin of a real kubectl${kubectl ? '' : ' (skipped: no kubectl on PATH)'}`, async () => {
    const env = { HOME: dir, PATH: `${dir}:${process.env.PATH ?? ''}`, KUBECONFIG: join(dir, 'none') };
    const plugins = await runKubectl(['plugin', 'list'], env);
    expect(plugins.stdout).toContain(plugin);
    const listed = await runKubectl(['vconsole', '--kubeconfig', kubevirt.kubeconfigPath(), '-n', 'prod', 'list', '-o', 'name'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual(['prod/db-1']);
  });
});
