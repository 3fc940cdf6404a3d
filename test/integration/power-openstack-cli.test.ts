// `vconsole power` on OpenStack servers through the Nova fixture: the server actions the
// openstack CLI sends (os-stop, os-start, reboot HARD, pause, unpause), the status they leave in
// `vconsole list`, and Nova's 409 for a server in a state the action does not take.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { runVconsole } from '../support/cli.js';

let fixture: OpenStackFixture;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-power-os-'));

beforeAll(async () => {
  fixture = await startOpenStackFixture();
});
afterAll(async () => {
  await fixture.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ HOME: dir, ...fixtureOpenrc(fixture) });

async function status(name: string): Promise<string | undefined> {
  const listed = await runVconsole(['list', '--provider', 'openstack', '-o', 'json'], env());
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { name: string; state: string }[]).find((vm) => vm.name === name)?.state;
}

describe('vconsole power on OpenStack', () => {
  it('stop, start, reset, pause and resume: one server action each, the status in list', async () => {
    const from = fixture.requests.length;
    const stopped = await runVconsole(['power', 'openstack:web-1', 'stop', '--yes'], env());
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(/^\S+Z \S+ openstack:web-1: power stop: asked to stop \(openstack server stop\)\n$/);
    expect(await status('web-1')).toBe('SHUTOFF');
    for (const action of ['start', 'reset', 'pause'])
      expect((await runVconsole(['power', 'openstack:web-1', action, '--yes'], env())).code).toBe(0);
    expect(await status('web-1')).toBe('PAUSED');
    expect((await runVconsole(['power', 'openstack:web-1', 'resume', '--yes'], env())).code).toBe(0);
    expect(await status('web-1')).toBe('ACTIVE');
    const actions = fixture.requests.slice(from).filter((r) => r.path.endsWith('/action'));
    expect(actions.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      Array(5).fill('POST /compute/v2.1/servers/3f0c2c1e-5a4b-4c1d-9e8f-0a1b2c3d4e5f/action 202'),
    );
  });

  it("Nova's 409 for a server already stopped is its one line (exit 1)", async () => {
    const result = await runVconsole(['power', 'openstack:stopped-vm', 'pause', '--yes'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "vconsole: openstack:stopped-vm: openstack server pause: Cannot 'pause' instance 7a9d6b2e-1c3f-4e5a-8b7c-6d5e4f3a2b1c while it is in vm_state shutoff\n",
    );
  });
});
