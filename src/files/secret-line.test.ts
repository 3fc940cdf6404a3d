import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { thrownBy } from '../../test/support/thrown.js';
import { readSecretLine } from './secret-line.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-secret-line-'));
const file = (name: string, text: string, mode = 0o600) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  chmodSync(at, mode);
  return at;
};
const password = { what: 'password' };
const secret = { what: 'secret', ownerOnly: true };

describe('readSecretLine', () => {
  it('takes the first line, trimmed', () => {
    expect(readSecretLine(file('a', '  s3cret \nsecond line\n'), '--password-file', password)).toBe('s3cret');
    expect(readSecretLine(file('b', 'crlf\r\n'), '--password-file', password)).toBe('crlf');
  });

  it('refuses an empty first line and a missing file as usage errors naming the flag, without echoing contents', () => {
    const empty = thrownBy(() => readSecretLine(file('c', '\nhidden'), '--password-file', password));
    expect(empty).toBeInstanceOf(UsageError);
    expect((empty as Error).message).toMatch(/--password-file .*first line is empty/);
    expect((empty as UsageError).hint).toBe('put the password on the first line');
    expect((empty as Error).message).not.toContain('hidden');
    const missing = thrownBy(() => readSecretLine(path.join(dir, 'nope'), '--pve-token-file', secret));
    expect(missing).toBeInstanceOf(UsageError);
    expect((missing as Error).message).toMatch(/--pve-token-file .*cannot read it/);
    expect((missing as UsageError).hint).toBe('give a file whose first line is the secret');
  });

  it.skipIf(process.platform === 'win32')('with ownerOnly, refuses a file others may read; without, reads it', () => {
    const open = file('open', 'visible\n', 0o644);
    const refused = thrownBy(() => readSecretLine(open, '--pve-password-file', secret));
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe(`--pve-password-file ${open}: others may read it (mode 644)`);
    expect((refused as Error).message).not.toContain('visible');
    expect(readSecretLine(open, '--password-file', password)).toBe('visible');
    expect(readSecretLine(file('private', 'kept\n'), '--pve-password-file', secret)).toBe('kept');
  });

  it('reads ~/ as the home directory', () => {
    const missing = thrownBy(() => readSecretLine('~/vconsole-no-such-file', '--pve-token-file', secret));
    expect((missing as Error).message).toContain(path.join(homedir(), 'vconsole-no-such-file'));
  });
});
