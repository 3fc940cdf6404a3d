// `npm run package` writes dist/bin/SHA256SUMS beside the executables, in the format the
// README's install section has users check: `sha256sum -c` (Linux), `shasum -a 256 -c` (macOS).
// Needs the package output; skips without it unless VCONSOLE_SEA=required (CI).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/bin');
const SUMS = path.join(BIN, 'SHA256SUMS');
const required = process.env.VCONSOLE_SEA === 'required';
const present = existsSync(SUMS);
if (!present && !required) console.warn('sea-checksums: skipping: dist/bin/SHA256SUMS is absent (run `npm run package`)');

describe.skipIf(!present && !required)('SHA256SUMS of the executables', () => {
  it('names every executable in dist/bin once, as HEX, two spaces, file name', () => {
    const lines = readFileSync(SUMS, 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // ends with a newline
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}vconsole-[a-z0-9]+-[a-z0-9]+(\.exe)?$/);
    const executables = readdirSync(BIN)
      .filter((name) => name.startsWith('vconsole-'))
      .sort();
    expect(lines.map((line) => line.slice(66))).toEqual(executables);
    expect(executables).toContain('vconsole-linux-x64');
  });

  it('is accepted by `sha256sum -c` in that directory', () => {
    const check = spawnSync('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: BIN, encoding: 'utf8', timeout: 120_000 });
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('vconsole-linux-x64: OK');
  });
});
