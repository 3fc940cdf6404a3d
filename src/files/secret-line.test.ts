import { execFileSync } from 'node:child_process';
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
const secret = { what: 'secret' };

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

  it.skipIf(process.platform === 'win32')('refuses a file others may read, whichever flag names it, without echoing it', () => {
    const open = file('open', 'visible\n', 0o644);
    for (const flag of ['--pve-password-file', '--password-file', '--vnc-password-file']) {
      const refused = thrownBy(() => readSecretLine(open, flag, password));
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(`${flag} ${open}: others may read it (mode 644)`);
      expect((refused as UsageError).hint).toBe(`chmod 600 ${open}: it holds a secret`);
      expect((refused as Error).message).not.toContain('visible');
    }
    expect((thrownBy(() => readSecretLine(file('group', 'g\n', 0o640), '--password-file', password)) as Error).message).toMatch(
      /others may read it \(mode 640\)/,
    );
    expect(readSecretLine(file('private', 'kept\n'), '--pve-password-file', secret)).toBe('kept');
    expect(readSecretLine(file('read-only', 'kept\n', 0o400), '--password-file', password)).toBe('kept');
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO at once (no writer needed) and a directory or a device, as not regular files',
    () => {
      const fifo = path.join(dir, 'fifo');
      execFileSync('mkfifo', ['-m', '600', fifo]);
      const refused = thrownBy(() => readSecretLine(fifo, '--pve-token-file', secret));
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(`--pve-token-file ${fifo}: it is a FIFO, not a regular file`);
      expect((refused as UsageError).hint).toBe('give a file whose first line is the secret');
      expect((thrownBy(() => readSecretLine(dir, '--password-file', password)) as Error).message).toMatch(
        /is a directory, not a regular file/,
      );
      expect((thrownBy(() => readSecretLine('/dev/zero', '--password-file', password)) as Error).message).toMatch(
        /\/dev\/zero: it is a device, not a regular file/,
      );
    },
  );

  it('reads no more than its first 64 KiB', () => {
    expect(readSecretLine(file('long', `${'x'.repeat(70 * 1024)}\n`), '--password-file', password)).toHaveLength(64 * 1024);
  });

  it('reads ~/ as the home directory', () => {
    const missing = thrownBy(() => readSecretLine('~/vconsole-no-such-file', '--pve-token-file', secret));
    expect((missing as Error).message).toContain(path.join(homedir(), 'vconsole-no-such-file'));
  });
});
