// `vconsole power` on KubeVirt VMs through the API fixture, which answers as virt-api does: the
// PUTs virtctl sends (path, body), the state they leave in `vconsole list`, virt-api's Conflict
// for a VM already running, and a user without "update" on the subresource refused before any
// VM acts.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole } from '../support/cli.js';

let fixture: KubevirtFixture;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-power-kv-'));

beforeAll(async () => {
  fixture = await startKubevirtFixture({ vmis: [{ namespace: 'lab', name: 'web' }], stoppedVms: [{ namespace: 'lab', name: 'db' }] });
});
afterAll(async () => {
  await fixture.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (token?: string) => ({ HOME: dir, KUBECONFIG: fixture.kubeconfigPath(token ? { token, fileName: 'viewer' } : {}) });

/** The PUTs the fixture saw since `from`: path and status. */
function puts(from: number): string[] {
  return fixture.requests
    .slice(from)
    .filter((r) => r.method === 'PUT')
    .map((r) => `${r.path} ${r.status}`);
}

async function states(): Promise<Record<string, string>> {
  const listed = await runVconsole(['list', '--provider', 'kubevirt', '-A', '-o', 'json'], env());
  expect(listed.code, listed.stderr).toBe(0);
  return Object.fromEntries((JSON.parse(listed.stdout) as { name: string; state: string }[]).map((vm) => [vm.name, vm.state]));
}

describe('vconsole power on KubeVirt', () => {
  it('start, pause, unpause and stop: virtctl PUTs on the subresources, the state in list', async () => {
    const from = fixture.requests.length;
    const started = await runVconsole(['power', 'kubevirt:lab/db', 'start', '--yes'], env());
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toMatch(/^\S+Z \S+ lab\/db: power start: asked to start \(virtctl start\)\n$/);
    expect((await runVconsole(['power', 'kubevirt:lab/web', 'pause', '--yes'], env())).code).toBe(0);
    // unpause answers virt-api's Conflict unless the VMI is paused: its 202 below shows pause took.
    expect((await runVconsole(['power', 'kubevirt:lab/web', 'resume', '--yes'], env())).code).toBe(0);
    const stopped = await runVconsole(['power', 'kubevirt:lab/web', 'stop', '--yes'], env());
    expect(stopped.stderr).toContain('lab/web: power stop: asked to stop (virtctl stop --force --grace-period=0)');
    expect(puts(from)).toEqual([
      '/apis/subresources.kubevirt.io/v1/namespaces/lab/virtualmachines/db/start 202',
      '/apis/subresources.kubevirt.io/v1/namespaces/lab/virtualmachineinstances/web/pause 200',
      '/apis/subresources.kubevirt.io/v1/namespaces/lab/virtualmachineinstances/web/unpause 200',
      '/apis/subresources.kubevirt.io/v1/namespaces/lab/virtualmachines/web/stop 202',
    ]);
    const now = await states();
    expect(now.db).toBe('Running');
    expect(now.web).not.toBe('Running');
  });

  it("virt-api's Conflict for a VM already running is the VM's one line (exit 1)", async () => {
    const result = await runVconsole(['power', 'kubevirt:lab/db', 'start', '--yes'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'vconsole: lab/db: virtctl start: Operation cannot be fulfilled on virtualmachine.kubevirt.io "db": VM is already running\n',
    );
  });

  it('a user without "update" on the subresource: named before anything acts (exit 1, no PUT)', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(['power', 'kubevirt:lab/db', 'restart', '--yes'], env(fixture.forbiddenToken));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'vconsole: lab/db: forbidden: you may not update virtualmachines/restart in namespace "lab"; ask for RBAC "update" on virtualmachines/restart in API group subresources.kubevirt.io\nnothing done\n',
    );
    expect(puts(from)).toEqual([]);
  });

  it("a halted VM's restart: virt-api v1.8.4's Conflict naming the run strategy (sic), as seen through the real one", async () => {
    // web was stopped above (runStrategy Halted).
    const result = await runVconsole(['power', 'kubevirt:lab/web', 'restart', '--yes'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'virtctl restart: Operation cannot be fulfilled on virtualmachine.kubevirt.io "web": RunStategy Halted does not support manual restart requests',
    );
  });

  it("sends client-go's Accept, as virtctl does: virt-api's router refuses one that allows only JSON (406)", async () => {
    const from = fixture.requests.length;
    expect((await runVconsole(['power', 'kubevirt:lab/db', 'pause', '--yes'], env())).code).toBe(0);
    expect(fixture.requests.slice(from).find((r) => r.method === 'PUT')?.headers.accept).toBe('application/json, */*');
    const unpause = '/apis/subresources.kubevirt.io/v1/namespaces/lab/virtualmachineinstances/db/unpause';
    const res = await new Promise<[number, string]>((resolve, reject) => {
      const req = https.request(`${fixture.url}${unpause}`, {
        method: 'PUT',
        ca: fixture.caPem,
        headers: { authorization: `Bearer ${fixture.token}`, accept: 'application/json' },
      });
      req.on('response', (answer) => {
        let body = '';
        answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
        answer.on('end', () => resolve([answer.statusCode ?? 0, body]));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toEqual([406, '406: Not Acceptable\n\nAvailable representations: ']);
  });
});
