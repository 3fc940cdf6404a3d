import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answeringTerminal, capturedIo } from '../../test/support/prompt-terminal.js';
import { parseConfig } from '../config/config.js';
import { demoPhase, demoPowerFile } from '../targets/demo/power.js';
import { runRunCommand, screenshotPath } from './run.js';

const terminal = answeringTerminal;
const io = capturedIo;

describe('vconsole run', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-run-unit-'));
    vi.stubEnv('XDG_STATE_HOME', dir);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('asks once up front, naming every VM and the power steps; no does nothing (exit 1)', async () => {
    const file = path.join(dir, 'p.yaml');
    fs.writeFileSync(file, '- power: pause\n- sleep: 1ms\n- power: resume\n');
    const asking = terminal('n');
    const out = io();
    const config = await parseConfig('', 'c.yaml');
    expect(await runRunCommand(file, ['demo:vm-a#serial', 'demo:vm-b#serial'], {}, config, out.io, asking.terminal)).toBe(1);
    expect(asking.asked()).toBe(
      'The script will pause at step 1, resume at step 3 on 2 VMs: demo:vm-a#serial, demo:vm-b#serial. Go ahead? [y/N] ',
    );
    expect(out.text()).toBe('nothing done\n');
    expect(demoPhase('vm-a', demoPowerFile())).toBe('Running');
  });

  it('a power step a VM cannot take now stops the script before anything is done', async () => {
    const file = path.join(dir, 'p.yaml');
    fs.writeFileSync(file, '- type: "x"\n- power: resume\n');
    const config = await parseConfig('', 'c.yaml');
    await expect(runRunCommand(file, ['demo:vm-a#serial'], { yes: true }, config, io().io, terminal('y').terminal)).rejects.toThrow(
      /cannot resume/,
    );
  });

  it('names each console its own picture', () => {
    expect(screenshotPath('shots/{target}-menu.png', 'prod/vm-a')).toBe('shots/prod_vm-a-menu.png');
    expect(screenshotPath('shots/menu.png', 'demo:vm-a')).toBe(path.join('shots', 'demo_vm-a-menu.png'));
  });
});
