import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JoinSource } from '../holding/join-source.js';
import { sourceChain } from '../proxy/wrapped-source.js';
import type { UpstreamSource } from '../proxy/types.js';
import { joiningFrom } from './joining.js';

const target: UpstreamSource = {
  name: 'vm-a',
  provider: 'test',
  facts: { consoleType: 'vnc' },
  dial: () => Promise.reject(new Error('unused')),
};
const hasJoin = (source: UpstreamSource) => [...sourceChain(source)].some((s) => s instanceof JoinSource);

describe.skipIf(process.platform === 'win32')('joiningFrom', () => {
  let xdg: string;
  const saved = process.env.XDG_RUNTIME_DIR;
  beforeEach(() => {
    xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-joining-'));
    process.env.XDG_RUNTIME_DIR = xdg;
  });
  afterEach(() => {
    process.env.XDG_RUNTIME_DIR = saved;
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    fs.rmSync(xdg, { recursive: true, force: true });
  });

  it('puts the join decorator right above the target, under what the command shares', () => {
    const notices: string[] = [];
    let below: UpstreamSource | undefined;
    const top = joiningFrom({}, 'open', (text) => notices.push(text)).wrap(target, (joined) => {
      below = joined;
      return { ...joined, name: 'top' };
    });
    expect(top.name).toBe('top');
    expect(below).toBeInstanceOf(JoinSource);
    expect((below as JoinSource).inner).toBe(target);
    expect(notices).toEqual([]);
  });

  it('removes what killed vconsoles left before it holds anything', () => {
    const dir = path.join(xdg, 'vconsole');
    fs.mkdirSync(dir, { mode: 0o700 });
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    fs.writeFileSync(path.join(dir, 'gone.json'), JSON.stringify({ pid: deadPid, command: 'open', target: 'x', kind: 'vnc' }));
    fs.writeFileSync(path.join(dir, 'gone.sock'), '');
    joiningFrom({}, 'proxy', () => undefined);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('--no-join leaves the chain as it was', () => {
    expect(hasJoin(joiningFrom({ join: false }, 'screenshot', () => undefined).wrap(target))).toBe(false);
  });

  it('a runtime directory others may enter: one warning, and the command dials its consoles itself', () => {
    fs.mkdirSync(path.join(xdg, 'vconsole'), { mode: 0o700 });
    fs.chmodSync(path.join(xdg, 'vconsole'), 0o777);
    const notices: string[] = [];
    const joining = joiningFrom({}, 'console', (text) => notices.push(text));
    expect(hasJoin(joining.wrap(target))).toBe(false);
    expect(notices).toEqual([
      `warning: not sharing consoles between vconsoles: ${path.join(xdg, 'vconsole')} is open to its group (mode 0777); chmod 700 ${path.join(xdg, 'vconsole')}`,
    ]);
  });
});
