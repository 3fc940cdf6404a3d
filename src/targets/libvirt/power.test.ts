// virsh's own commands for each action, run on the connection as every virsh call is: a stand-in
// virsh on PATH records its arguments and answers domstate with the state given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POWER_ACTIONS } from '../capabilities.js';
import { powerDomain } from './power.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-virsh-power-'));
const calls = path.join(dir, 'calls');
const state = path.join(dir, 'state');
const local = { kind: 'local', uri: 'qemu:///system' } as const;
const signal = new AbortController().signal;

beforeAll(() => {
  fs.writeFileSync(
    path.join(dir, 'virsh'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s|' "$a"; done >> '${calls}'\necho >> '${calls}'\n[ "$3" = domstate ] && cat '${state}'\nexit 0\n`,
    { mode: 0o755 },
  );
  vi.stubEnv('PATH', `${dir}${path.delimiter}${process.env.PATH}`);
});
afterAll(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

const recorded = () => fs.readFileSync(calls, 'utf8').trim().split('\n');

describe.skipIf(process.platform === 'win32')('libvirt power', () => {
  it('runs virsh start, destroy, shutdown, reboot, reset, suspend and resume with the name after --', async () => {
    fs.writeFileSync(calls, '');
    const done = [];
    for (const action of POWER_ACTIONS) done.push(await powerDomain(local, 'web $(touch x) 1', action, 'act', signal));
    expect(recorded().map((line) => line.split('|')[2])).toEqual(['start', 'destroy', 'reboot', 'reset', 'suspend', 'resume', 'shutdown']);
    expect(recorded()[1]).toBe('-c|qemu:///system|destroy|--|web $(touch x) 1|');
    expect(done[1]).toBe('stopped (virsh destroy)');
    expect(fs.existsSync('x')).toBe(false);
  });

  it('checks with domstate and refuses an action the state does not take, naming virsh command', async () => {
    fs.writeFileSync(calls, '');
    fs.writeFileSync(state, 'shut off\n');
    await expect(powerDomain(local, 'web', 'pause', 'check', signal)).rejects.toThrow('cannot pause: the domain is shut off');
    await expect(powerDomain(local, 'web', 'start', 'check', signal)).resolves.toBe('can');
    fs.writeFileSync(state, 'paused\n');
    await expect(powerDomain(local, 'web', 'resume', 'check', signal)).resolves.toBe('can');
    expect(recorded().every((line) => line.startsWith('-c|qemu:///system|domstate|--|web|'))).toBe(true);
  });
});
