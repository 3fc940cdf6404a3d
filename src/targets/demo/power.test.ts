import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoPhase, demoPower, demoPowerFile } from './power.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-demo-power-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('demo power', () => {
  it('keeps the state under XDG_STATE_HOME, else ~/.local/state', () => {
    expect(demoPowerFile({ XDG_STATE_HOME: '/s' })).toBe('/s/vconsole/demo-power.json');
    expect(demoPowerFile({})).toBe(path.join(os.homedir(), '.local/state/vconsole/demo-power.json'));
  });

  it('changes the phase as a hypervisor would, and refuses what the phase does not allow', () => {
    const file = path.join(dir, 'a', 'demo-power.json');
    expect(demoPhase('x', file)).toBe('Running');
    expect(() => demoPower('x', 'start', 'check', file)).toThrow('cannot start: the VM is running');
    expect(demoPower('x', 'shutdown', 'check', file)).toBe('can');
    expect(demoPhase('x', file)).toBe('Running');
    expect(demoPower('x', 'shutdown', 'act', file)).toBe('shut down (was running)');
    expect(demoPhase('x', file)).toBe('Stopped');
    expect(() => demoPower('x', 'pause', 'act', file)).toThrow('cannot pause: the VM is stopped');
    expect(demoPower('x', 'start', 'act', file)).toBe('started (was stopped)');
    expect(demoPower('x', 'pause', 'act', file)).toBe('paused (was running)');
    expect(demoPower('x', 'reset', 'act', file)).toBe('reset (was paused)');
    expect(demoPhase('x', file)).toBe('Running');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reads a damaged file as every VM running', () => {
    const file = path.join(dir, 'damaged.json');
    fs.writeFileSync(file, '{"x": "Exploded", "y": "Paused"');
    expect(demoPhase('x', file)).toBe('Running');
    expect(demoPhase('y', file)).toBe('Running');
  });
});
