// OpenRun in one process, with demo consoles and no viewer: what a run opened, at the start or
// added later as with the TUI's `a`, q closes, every port of it, before open exits 0.
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { VconsoleConfig } from '../../config/config.js';
import { DEFAULT_ESCAPE } from '../../terminal/escape-key.js';
import { hostPlatform } from '../../viewers/system-environment.js';
import { waitFor } from '../../../test/support/wait.js';
import { recordingFrom } from '../record-flags.js';
import { sharingFrom } from '../sharing.js';
import { resolveTargets, targetOptionsFrom } from '../target-options.js';
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

  async function demoRun() {
    const flags: OpenFlags = { viewer: 'none', tui: false };
    const options = targetOptionsFrom(flags, CONFIG);
    const stdout: string[] = [];
    const stderr: string[] = [];
    const exits: number[] = [];
    const run = new OpenRun(
      {
        flags,
        config: CONFIG,
        options,
        listen: '127.0.0.1',
        ports: [],
        sharing: await sharingFrom({}, '127.0.0.1', { viewerPasswords: false }),
        recording: await recordingFrom({}),
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
});
