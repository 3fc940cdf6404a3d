import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answeringTerminal, capturedIo } from '../../test/support/prompt-terminal.js';
import { parseConfig } from '../config/config.js';
import { demoPhase, demoPowerFile } from '../targets/demo/power.js';
import { runPowerCommand, splitTargetsAndAction } from './power.js';

const terminal = answeringTerminal;
const io = capturedIo;

describe('power', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-power-unit-'));
    vi.stubEnv('XDG_STATE_HOME', dir);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes the last word as the action, the others as the VMs', () => {
    expect(splitTargetsAndAction(['a', 'b', 'Restart'])).toEqual({ targets: ['a', 'b'], action: 'restart' });
    expect(() => splitTargetsAndAction(['restart'])).toThrow(/name the VMs and then what to do/);
    expect(() => splitTargetsAndAction(['a', 'reboot'])).toThrow(/"reboot" is no power action/);
  });

  it('asks y/N on a terminal naming every VM; no leaves them as they were (exit 1)', async () => {
    const config = await parseConfig('', 'c.yaml');
    const asking = terminal('n');
    const out = io();
    expect(await runPowerCommand(['demo:vm-a', 'demo:vm-b'], 'stop', {}, config, out.io, asking.terminal)).toBe(1);
    expect(asking.asked()).toBe('stop 2 VMs: demo:vm-a, demo:vm-b? [y/N] ');
    expect(out.text()).toBe('nothing done\n');
    expect(demoPhase('vm-a', demoPowerFile())).toBe('Running');
  });

  it('yes on the terminal acts on each VM, one line each', async () => {
    const config = await parseConfig('', 'c.yaml');
    const asking = terminal('y');
    const out = io();
    const code = await runPowerCommand(['demo:vm-a'], 'pause', {}, config, out.io, asking.terminal);
    expect(code).toBe(0);
    expect(out.text()).toMatch(/^\S+Z \S+ demo:vm-a: power pause: paused \(was running\)\n$/);
    expect(demoPhase('vm-a', demoPowerFile())).toBe('Paused');
  });
});
