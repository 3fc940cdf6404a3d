// `vconsole power` on demo VMs, as a user runs it: the state it leaves is what `vconsole list`
// shows in another process; refusals (no terminal, an action a VM cannot take now, a console with
// no power) say so in one line and change nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-power-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = { HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };

async function demoStates(): Promise<Record<string, string>> {
  const listed = await runVconsole(['list', '--provider', 'demo'], env);
  expect(listed.code).toBe(0);
  const rows = listed.stdout.trim().split('\n').slice(1);
  return Object.fromEntries(rows.map((row) => row.split(/ +/).slice(0, 2)));
}

describe.skipIf(process.platform === 'win32')('vconsole power on demo VMs', () => {
  it('without a terminal and without --yes: one line naming the VMs and --yes, exit 2, nothing done', async () => {
    const result = await runVconsole(['power', 'demo:vm-a', 'demo:vm-b', 'stop'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'vconsole: power stop asks before it acts on demo:vm-a, demo:vm-b, and there is no terminal to ask on; add --yes to do it without asking\n',
    );
    expect((await demoStates())['demo:vm-a']).toBe('Running');
  });

  it('stops, pauses, resumes and starts: one action line per VM, the state visible in list', async () => {
    const stopped = await runVconsole(['power', 'demo:vm-a', 'demo:vm-b', 'stop', '--yes'], env);
    expect(stopped.code).toBe(0);
    const lines = stopped.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const [i, vm] of ['demo:vm-a', 'demo:vm-b'].entries())
      expect(lines[i]).toMatch(
        new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\S+ ${vm}: power stop: stopped \\(was running\\)$`),
      );
    expect(await demoStates()).toMatchObject({ 'demo:vm-a': 'Stopped', 'demo:vm-b': 'Stopped', 'demo:vm-c': 'Running' });

    expect((await runVconsole(['power', 'demo:vm-c', 'pause', '--yes'], env)).code).toBe(0);
    expect((await demoStates())['demo:vm-c']).toBe('Paused');
    expect((await runVconsole(['power', 'demo:vm-c', 'resume', '--yes'], env)).code).toBe(0);
    expect((await runVconsole(['power', 'demo:vm-a', 'start', '--yes'], env)).code).toBe(0);
    expect(await demoStates()).toMatchObject({ 'demo:vm-a': 'Running', 'demo:vm-b': 'Stopped', 'demo:vm-c': 'Running' });
  });

  it('a VM that cannot take the action now stops every VM from acting (exit 1, nothing done)', async () => {
    const result = await runVconsole(['power', 'demo:vm-a', 'demo:vm-b', 'pause', '--yes'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('vconsole: demo:vm-b: cannot pause: the VM is stopped\nnothing done\n');
    expect((await demoStates())['demo:vm-a']).toBe('Running');
  });

  it('a console with no power (a raw TCP console) or a word that is no action: one line, exit 2', async () => {
    const tcp = await runVconsole(['power', 'tcp://127.0.0.1:5900', 'stop', '--yes'], env);
    expect(tcp.code).toBe(2);
    expect(tcp.stderr).toBe(
      'vconsole: tcp://127.0.0.1:5900: vconsole cannot change the power of a tcp console; name a VM of a cloud or hypervisor\n',
    );
    const word = await runVconsole(['power', 'demo:vm-a', 'fly'], env);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(
      /^vconsole: "fly" is no power action; end with one of start, stop, restart, reset, pause, resume, shutdown/,
    );
  });
});
