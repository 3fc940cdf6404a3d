// `vconsole power` on Proxmox VE guests through the API fixture: the status calls qm sends
// (POST /nodes/NODE/qemu/VMID/status/ACTION), the state they leave in `vconsole list`, and a
// token without VM.PowerMgmt refused before any guest acts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPveFixture, type FixtureGuest, type PveFixture } from '../fixtures/pve-api.js';
import { runVconsole } from '../support/cli.js';

const TOKEN_ID = 'vconsole@pve!power';
const TOKEN_SECRET = '4c1d9e8f-0a1b-4c3d-8e5f-3f0c2c1e5a4b';
let dir: string;
let fixture: PveFixture;
let args: string[];

const guests: FixtureGuest[] = [
  { vmid: 100, name: 'web-1', node: 'pve1', type: 'qemu', status: 'running' },
  { vmid: 101, name: 'locked', node: 'pve1', type: 'qemu', status: 'running' },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-power-pve-'));
  fixture = await startPveFixture({ dir, guests, tokens: { [TOKEN_ID]: TOKEN_SECRET }, withoutPowerMgmt: { [TOKEN_ID]: [101] } });
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN_ID}=${TOKEN_SECRET}\n`, { mode: 0o600 });
  args = ['--pve-url', fixture.url, '--pve-token-file', tokenFile, '--ca', fixture.caFile];
});
afterAll(async () => {
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ HOME: dir });

async function state(name: string): Promise<string | undefined> {
  const listed = await runVconsole(['list', '--provider', 'pve', '-o', 'json', ...args], env());
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { name: string; state: string }[]).find((vm) => vm.name === name)?.state;
}

describe('vconsole power on Proxmox VE', () => {
  it('stop, start and reset: one status call each, the state in list', async () => {
    const from = fixture.requests.length;
    const stopped = await runVconsole(['power', 'pve:100', 'stop', '--yes', ...args], env());
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(/^\S+Z \S+ pve:100: power stop: task stop started \(qm stop 100\)\n$/);
    expect(await state('web-1')).toBe('stopped');
    expect((await runVconsole(['power', 'pve:100', 'start', '--yes', ...args], env())).code).toBe(0);
    expect((await runVconsole(['power', 'pve:100', 'reset', '--yes', ...args], env())).code).toBe(0);
    expect(await state('web-1')).toBe('running');
    expect(fixture.requests.slice(from).filter((r) => r.includes('/status/'))).toEqual([
      'POST /api2/json/nodes/pve1/qemu/100/status/stop',
      'POST /api2/json/nodes/pve1/qemu/100/status/start',
      'POST /api2/json/nodes/pve1/qemu/100/status/reset',
    ]);
  });

  it('a token without VM.PowerMgmt on one guest: named before any guest acts (exit 1)', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(['power', 'pve:100', 'pve:101', 'shutdown', '--yes', ...args], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pve:101: Permission check failed (/vms/101, VM.PowerMgmt)');
    expect(result.stderr).toMatch(/nothing done\n$/);
    expect(fixture.requests.slice(from).filter((r) => r.includes('/status/'))).toEqual([]);
  });
});
