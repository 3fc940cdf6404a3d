import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { thrownBy } from '../../test/support/thrown.js';
import { VNC_PASSWORD_CHARS, generateVncPassword, readPasswordFile } from './password-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-pass-'));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};

describe('readPasswordFile', () => {
  it('takes the first line, trimmed', () => {
    expect(readPasswordFile(file('a', '  s3cret \nsecond line\n'), '--password-file')).toBe('s3cret');
    expect(readPasswordFile(file('b', 'crlf\r\n'), '--password-file')).toBe('crlf');
  });

  it('refuses an empty first line and a missing file as usage errors, without echoing contents', () => {
    const empty = thrownBy(() => readPasswordFile(file('c', '\nhidden'), '--password-file'));
    expect(empty).toBeInstanceOf(UsageError);
    expect((empty as Error).message).toMatch(/--password-file .*first line is empty/);
    expect((empty as Error).message).not.toContain('hidden');
    const missing = thrownBy(() => readPasswordFile(path.join(dir, 'nope'), '--vnc-password-file'));
    expect(missing).toBeInstanceOf(UsageError);
    expect((missing as Error).message).toMatch(/--vnc-password-file .*cannot read it/);
  });
});

describe('generateVncPassword', () => {
  it('makes a different password of the length VNC authentication uses each time', () => {
    const a = generateVncPassword();
    expect(a).toHaveLength(VNC_PASSWORD_CHARS);
    expect(generateVncPassword()).not.toBe(a);
  });
});
