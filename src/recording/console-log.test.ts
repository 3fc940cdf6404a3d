import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleLog } from './console-log.js';

describe('ConsoleLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-log-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps bytes in the order they came, however small the writes (a BIOS prints a byte at a time)', async () => {
    const file = join(dir, 'vm.log');
    const log = await ConsoleLog.open(file);
    const text = Array.from({ length: 400 }, (_, i) => `Select boot device ${i}:\r\n`).join('');
    for (const byte of Buffer.from(text)) log.write(Buffer.of(byte));
    await log.close();
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('appends to what the file held and creates it private (0600)', async () => {
    const kept = join(dir, 'kept.log');
    await writeFile(kept, 'before\n');
    const appended = await ConsoleLog.open(kept);
    appended.write(Buffer.from('after\n'));
    await appended.close();
    expect(await readFile(kept, 'utf8')).toBe('before\nafter\n');

    const created = join(dir, 'created.log');
    await (await ConsoleLog.open(created)).close();
    expect((await stat(created)).mode & 0o777).toBe(0o600);
  });

  it('says a failed write once and still closes (a full disk)', async () => {
    const failures: string[] = [];
    const log = await ConsoleLog.open('/dev/full', (err) => failures.push((err as NodeJS.ErrnoException).code ?? err.message));
    log.write(Buffer.from('one'));
    log.write(Buffer.from('two'));
    await log.close();
    expect(failures).toEqual(['ENOSPC']);
    log.write(Buffer.from('after close'));
    await log.close();
  });
});
