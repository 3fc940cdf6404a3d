// OpenRun in one process, with demo consoles and no viewer: what a run opened, at the start or
// added later as with the TUI's `a`, q closes, every port of it, before open exits 0.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type VconsoleConfig } from '../../config/config.js';
import { DEFAULT_ESCAPE } from '../../terminal/escape-key.js';
import { hostPlatform } from '../../viewers/system-environment.js';
import { waitFor } from '../../../test/support/wait.js';
import { OPEN_SERVING, servingPlan } from '../serving-plan.js';
import { resolveTargets, targetOptionsFrom } from '../target-options.js';
import { openHandlers } from './actions.js';
import { OpenRun } from './run.js';
import type { OpenFlags } from './settings.js';

const CONFIG: VconsoleConfig = { defaults: {}, aliases: {} };

function lines(chunks: string[]): string[] {
  return chunks.join('').split('\n').filter(Boolean);
}

/** A stream that keeps what is written to it. */
function sink(into: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      into.push(String(chunk));
      done();
    },
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('OpenRun', () => {
  const runs: OpenRun[] = [];
  afterEach(() => runs.splice(0).forEach((run) => run.shutdown.dispose()));

  async function demoRun(flags: OpenFlags = { viewer: 'none', tui: false }, config = CONFIG) {
    const options = targetOptionsFrom(flags, config);
    const stdout: string[] = [];
    const stderr: string[] = [];
    const exits: number[] = [];
    const run = new OpenRun(
      {
        flags,
        config,
        options,
        ports: [],
        plan: await servingPlan(
          { join: false, share: false },
          { profile: OPEN_SERVING, listen: '127.0.0.1', configShare: undefined, targets: [] },
          () => undefined,
        ),
        escapeKey: DEFAULT_ESCAPE,
        thumbnailMode: 'none',
        useTui: false,
        viewer: { choice: { kind: 'none', source: 'flag' }, detected: undefined, platform: hostPlatform() },
        display: { shows: true },
        viewerEnv: {},
      },
      { stdout: sink(stdout), stderr: sink(stderr), exit: (code) => exits.push(code) },
    );
    runs.push(run);
    return { run, options, stdout, stderr, exits };
  }

  it('q closes the ports of the consoles opened at the start and of one added later, then exits 0', async () => {
    const { run, options, stdout, exits } = await demoRun();
    await run.open(resolveTargets(['demo:vm-a'], options, CONFIG), []);
    run.addTarget('demo:vm-b');
    await waitFor(() => lines(stdout).length === 2, 'two port lines');
    const served = lines(stdout).map((line) => JSON.parse(line) as { target: string; port: number });
    expect(served.map((s) => s.target)).toEqual(['demo:vm-a', 'demo:vm-b']);
    for (const { port } of served) expect(await accepts(port)).toBe(true);

    run.quit();
    await waitFor(() => exits.length > 0, 'the exit');
    expect(exits).toEqual([0]);
    expect(run.registry.all().map((s) => s.snapshot().state)).toEqual(['closed', 'closed']);
    for (const { port } of served) expect(await accepts(port)).toBe(false);
  });

  it('a target added that cannot be read is one notice; the run goes on', async () => {
    const { run, options, stdout, stderr, exits } = await demoRun();
    await run.open(resolveTargets(['demo:vm-a'], options, CONFIG), []);
    run.addTarget('demo:');
    expect(lines(stderr).some((line) => line.includes('bad demo target'))).toBe(true);
    expect(lines(stdout)).toHaveLength(1);
    expect(run.registry.all().map((s) => s.name)).toEqual(['demo:vm-a']);
    run.quit();
    await waitFor(() => exits.length > 0, 'the exit');
  });

  it('S saves the selector for what it found (and --follow added), and the targets named or added at a', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-run-save-'));
    const file = path.join(dir, 'config.yaml');
    try {
      const flags: OpenFlags = { viewer: 'none', tui: false, selector: 'app=web' };
      const { run, options, stdout, exits } = await demoRun(flags, { ...CONFIG, file });
      await run.open(resolveTargets(['demo:vm-a'], options, CONFIG), resolveTargets(['demo:vm-b'], options, CONFIG));
      run.addTarget('demo:vm-c');
      run.addTarget('demo:vm-d', { selected: true });
      await waitFor(() => lines(stdout).length === 4, 'four port lines');
      expect(await openHandlers(run)['save-workspace']({ action: 'save-workspace', name: 'web' })).toMatch(
        /the VMs -l app=web selects \(2 open now\) and 2 consoles/,
      );
      expect((await loadConfig(file)).workspaces?.web).toEqual({
        selector: 'app=web',
        targets: ['demo:vm-a', 'demo:vm-c'],
        viewer: 'none',
      });
      run.quit();
      await waitFor(() => exits.length > 0, 'the exit');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
