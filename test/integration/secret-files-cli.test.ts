import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVconsole, type RunResult } from '../support/cli.js';

// Every flag that names a file holding a secret follows one policy: a regular file only its
// owner may read. A file others may read is refused with one line saying `chmod 600 FILE`; a
// FIFO is refused at once (no writer needed), where reading it waited for ever. Each file is
// refused before anything is dialled, so the targets below need not exist.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-secret-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A file with `text` at `mode` (set after writing: the umask does not narrow it). */
function secretFile(name: string, text: string, mode: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  fs.chmodSync(file, mode);
  return file;
}

const PVE = ['--provider', 'pve', '--pve-url', 'https://127.0.0.1:9'];

/** Each secret-file flag in a command that reads it first, given `file`. */
const FLAGS: [string, (file: string) => string[]][] = [
  ['--password-file', (file) => ['proxy', 'demo:vm-a', '--password-file', file]],
  ['--vnc-password-file', (file) => ['screenshot', 'tcp://127.0.0.1:9', '--vnc-password-file', file, '-o', path.join(dir, 'x.png')]],
  ['--pve-token-file', (file) => ['list', ...PVE, '--pve-token-file', file]],
  ['--pve-password-file', (file) => ['list', ...PVE, '--pve-user', 'root@pam', '--pve-password-file', file]],
];

function expectOneUsageLine(result: RunResult, pattern: RegExp): void {
  expect(result.signal, 'it ended by itself').toBeNull();
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

describe.skipIf(process.platform === 'win32')('secret files: one policy for every flag', () => {
  it.each(FLAGS)('%s at mode 0644 is refused in one line naming chmod 600, never echoing the secret', async (flag, args) => {
    const file = secretFile(`open${flag}`, 'vconsole@pve!console=s3cret-in-the-open\n', 0o644);
    const result = await runVconsole(args(file));
    expectOneUsageLine(
      result,
      new RegExp(`^vconsole: ${flag} ${file}: others may read it \\(mode 644\\); chmod 600 ${file}: it holds a secret\\n$`),
    );
    expect(result.stderr).not.toContain('s3cret');
  });

  it.each(FLAGS)('%s naming a FIFO no one writes to is refused at once in one line', async (flag, args) => {
    const fifo = path.join(dir, `fifo${flag}`);
    execFileSync('mkfifo', ['-m', '600', fifo]);
    // Bounded: a vconsole that waits on the FIFO is killed at this deadline, and the test fails on its signal.
    const result = await runVconsole(args(fifo), {}, 20_000);
    expectOneUsageLine(result, new RegExp(`^vconsole: ${flag} ${fifo}: it is a FIFO, not a regular file; give a file whose first line`));
  });
});
