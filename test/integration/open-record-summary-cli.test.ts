import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// `open --record`: on the way out (q in the TUI, Ctrl+C, SIGTERM: one shutdown) each recording
// written is named with its size on stderr, where it stays once the TUI has given the screen back.

const running: RunningVconsole[] = [];
const dirs: string[] = [];
afterEach(() => {
  while (running.length) running.pop()!.kill();
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe('open --record, on the way out', () => {
  it('names each recording written with its size, one line each', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-record-summary-'));
    dirs.push(dir);
    const child = startVconsole(['open', 'demo:vm-a', 'demo:vm-c#serial', '--record', dir, '--viewer', 'none', '--no-tui']);
    running.push(child);
    await waitFor(() => fs.readdirSync(dir).length === 2, 'both recordings started', 20_000);
    await waitFor(() => fs.readdirSync(dir).every((f) => fs.statSync(path.join(dir, f)).size > 0), 'both recordings written', 20_000);
    await child.stop();
    const said = child
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('vconsole: recorded '));
    expect(said).toHaveLength(2);
    for (const file of fs.readdirSync(dir)) {
      const size = fs.statSync(path.join(dir, file)).size;
      expect(
        said.some((line) => line.includes(path.join(dir, file)) && / \(\d+(\.\d)? [KMG]?B\)$/.test(line)),
        `${file} (${size} bytes)`,
      ).toBe(true);
    }
  });
});
