// `npm run package` writes dist/bin/SHA256SUMS beside the executables, in the format the
// README's install section has users check: `sha256sum -c` (Linux), `shasum -a 256 -c` (macOS).
// Needs the package output; skips without it unless VCONSOLE_SEA=required (CI).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'dist/bin');
const SUMS = path.join(BIN, 'SHA256SUMS');
const required = process.env.VCONSOLE_SEA === 'required';
const present = existsSync(SUMS);
if (!present && !required) console.warn('sea-checksums: skipping: dist/bin/SHA256SUMS is absent (run `npm run package`)');

describe.skipIf(!present && !required)('SHA256SUMS of the executables', () => {
  it('names every executable in dist/bin once, as HEX, two spaces, file name', () => {
    const lines = readFileSync(SUMS, 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // ends with a newline
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}vconsole-[a-z0-9]+-[a-z0-9]+(\.exe)?$/);
    // The executables, not the .rpm packages beside them (vconsole-VERSION-1.ARCH.rpm).
    const executables = readdirSync(BIN)
      .filter((name) => name.startsWith('vconsole-') && !name.endsWith('.rpm'))
      .sort();
    expect(lines.map((line) => line.slice(66))).toEqual(executables);
    expect(executables).toContain('vconsole-linux-x64');
  });

  it('is accepted by `sha256sum -c` in that directory', () => {
    const check = spawnSync('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: BIN, encoding: 'utf8', timeout: 120_000 });
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('vconsole-linux-x64: OK');
  });

  // What a user has: SHA256SUMS and the one executable they downloaded, in their own directory.
  it('accepts the documented commands in a directory with SHA256SUMS and one executable, and refuses a changed one', () => {
    // docs/SINGLE-EXECUTABLE.md's "Checking a copy" holds the commands; the README's install section gives the first.
    const doc = readFileSync(path.join(ROOT, 'docs', 'SINGLE-EXECUTABLE.md'), 'utf8');
    const block = /## Checking a copy[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc);
    expect(block, "docs/SINGLE-EXECUTABLE.md: the sh block of 'Checking a copy'").not.toBeNull();
    const commands = block![1]
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(commands.map((command) => command.split(' ')[0])).toEqual(['sha256sum', 'shasum']);
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), "the README's install section").toContain(`\`${commands[0]}\``);
    const downloads = mkdtempSync(path.join(tmpdir(), 'vconsole downloads '));
    try {
      symlinkSync(SUMS, path.join(downloads, 'SHA256SUMS'));
      symlinkSync(path.join(BIN, 'vconsole-linux-x64'), path.join(downloads, 'vconsole-linux-x64'));
      for (const command of commands) {
        const check = spawnSync('sh', ['-c', command], { cwd: downloads, encoding: 'utf8', timeout: 120_000 });
        expect(check.status, `${command}: ${check.stderr}`).toBe(0);
        expect(check.stdout.trim(), command).toBe('vconsole-linux-x64: OK');
      }
      rmSync(path.join(downloads, 'vconsole-linux-x64'));
      writeFileSync(path.join(downloads, 'vconsole-linux-x64'), 'not the executable');
      for (const command of commands) {
        const check = spawnSync('sh', ['-c', command], { cwd: downloads, encoding: 'utf8', timeout: 120_000 });
        expect(check.status, command).not.toBe(0);
        expect(check.stdout, command).toContain('vconsole-linux-x64: FAILED');
      }
    } finally {
      rmSync(downloads, { recursive: true, force: true });
    }
  });
});
