import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.js';

const MODULE = fileURLToPath(new URL('./child-processes.ts', import.meta.url));

/**
 * A node process that starts `sleep` through endsWithVconsole, prints its pid, then waits; with
 * `handled`, it has a handler of its own for the signal (a command's shutdown) that exits 0.
 */
function vconsoleLike(handled: boolean) {
  const script = [
    `import { spawn } from 'node:child_process';`,
    `const { endsWithVconsole } = await import(${JSON.stringify(MODULE)});`,
    `const child = endsWithVconsole(spawn('sleep', ['600'], { stdio: 'ignore' }));`,
    handled ? `process.on('SIGTERM', () => setTimeout(() => process.exit(0), 10));` : '',
    `console.log(child.pid);`,
    `setInterval(() => undefined, 1000);`,
  ].join('\n');
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

const running = (pid: number) => spawnSync('kill', ['-0', String(pid)]).status === 0;

async function started(proc: ReturnType<typeof vconsoleLike>): Promise<number> {
  return new Promise((resolve) => proc.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
}

const exited = (proc: ReturnType<typeof vconsoleLike>) =>
  new Promise<[number | null, NodeJS.Signals | null]>((resolve) => proc.once('exit', (code, signal) => resolve([code, signal])));

describe.skipIf(process.platform === 'win32')('children that end with vconsole', () => {
  it('are killed by a signal no command handles yet, which then ends vconsole as it would have', async () => {
    const proc = vconsoleLike(false);
    const pid = await started(proc);
    expect(running(pid)).toBe(true);
    proc.kill('SIGTERM');
    expect(await exited(proc)).toEqual([null, 'SIGTERM']);
    await waitFor(() => !running(pid), `the child (pid ${pid}) to be killed`);
  });

  it("are left to a command's own handler, and killed when it exits", async () => {
    const proc = vconsoleLike(true);
    const pid = await started(proc);
    proc.kill('SIGTERM');
    expect(await exited(proc)).toEqual([0, null]);
    await waitFor(() => !running(pid), `the child (pid ${pid}) to be killed`);
  });
});
