import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mountTinyFilesystem, tinyFilesystemSkip } from '../../test/support/tiny-filesystem.js';
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

  it.skipIf(tinyFilesystemSkip)(
    `says a failed write once, as "disk full" naming the file, and still closes (a full disk)${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async () => {
      const disk = mountTinyFilesystem();
      try {
        const file = join(disk.dir, 'vm.log');
        const failures: string[] = [];
        const log = await ConsoleLog.open(file, (err) => failures.push(err.message));
        disk.fill();
        for (let i = 0; i < 4; i++) log.write(Buffer.alloc(8192, 0x41));
        await log.close();
        expect(failures).toEqual([`${file}: disk full`]);
        log.write(Buffer.from('after close'));
        await log.close();
      } finally {
        disk.unmount();
      }
    },
  );

  it('refuses a device, a FIFO and a planted symbolic link, leaving what the link points to untouched', async () => {
    await expect(ConsoleLog.open('/dev/full')).rejects.toThrow('/dev/full: it is not a regular file');
    const target = join(dir, 'victim');
    await writeFile(target, 'kept\n');
    const planted = join(dir, 'vm.log');
    await symlink(target, planted);
    await expect(ConsoleLog.open(planted)).rejects.toThrow(`${planted}: it is a symbolic link, which vconsole does not follow`);
    expect(await readFile(target, 'utf8')).toBe('kept\n');
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', [fifo]);
    await expect(ConsoleLog.open(fifo)).rejects.toThrow(`${fifo}: it is not a regular file`);
  });

  it('makes an existing log readable by others private', async () => {
    const open = join(dir, 'open.log');
    await writeFile(open, 'x', { mode: 0o644 });
    await (await ConsoleLog.open(open)).close();
    expect((await stat(open)).mode & 0o777).toBe(0o600);
  });
});
