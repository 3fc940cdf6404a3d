import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mountTinyFilesystem, tinyFilesystemSkip } from '../../test/support/tiny-filesystem.js';
import { directoryWarning, ensureDirectory, writePrivateFile, writePrivateFileSync, writePrivateNewFile } from './safe-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-safe-file-'));
  dirs.push(dir);
  return dir;
}

describe('directoryWarning', () => {
  it('names a directory other users may write to without the sticky bit, and lets a private or sticky one pass', () => {
    const dir = tempDir();
    expect(directoryWarning(dir)).toBeUndefined();
    fs.chmodSync(dir, 0o777);
    expect(directoryWarning(dir)).toBe(
      `${dir} is writable by other users (mode 777), who can replace the files vconsole writes there; use a private directory (chmod go-w)`,
    );
    fs.chmodSync(dir, 0o775);
    expect(directoryWarning(dir)).toMatch(/writable by other users \(mode 775\)/);
    // /tmp's way: others write, but only the owner of a file may remove or rename it.
    fs.chmodSync(dir, 0o1777);
    expect(directoryWarning(dir)).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)("names a directory of another user (as root: a user's directory is not root's to trust)", () => {
    const dir = tempDir();
    fs.chownSync(dir, 4242, 4242);
    expect(directoryWarning(dir)).toBe(`${dir} belongs to another user (uid 4242), who can replace the files vconsole writes there`);
  });
});

describe('writing private files', () => {
  it('writes new files and replaced ones 0600, never through a planted link, into a FIFO or over another kind of file', async () => {
    const dir = tempDir();
    const shot = path.join(dir, 'shot.png');
    fs.writeFileSync(shot, 'old', { mode: 0o644 });
    await writePrivateFile(shot, Buffer.from('new'));
    expect([fs.readFileSync(shot, 'utf8'), fs.statSync(shot).mode & 0o777]).toEqual(['new', 0o600]);
    writePrivateFileSync(path.join(dir, 'frame.png'), Buffer.from('f'));
    expect(fs.statSync(path.join(dir, 'frame.png')).mode & 0o777).toBe(0o600);

    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'kept');
    fs.symlinkSync(victim, path.join(dir, 'link.png'));
    await expect(writePrivateFile(path.join(dir, 'link.png'), Buffer.from('x'))).rejects.toThrow(
      /it is a symbolic link, which vconsole does not follow/,
    );
    expect(() => writePrivateFileSync(path.join(dir, 'link.png'), Buffer.from('x'))).toThrow(/symbolic link/);
    await expect(writePrivateNewFile(path.join(dir, 'link.png'), Buffer.from('x'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(victim, 'utf8')).toBe('kept');

    const fifo = path.join(dir, 'fifo.png');
    execFileSync('mkfifo', [fifo]);
    await expect(writePrivateFile(fifo, Buffer.from('x'))).rejects.toThrow(`${fifo}: it is not a regular file`);
  });

  it.skipIf(tinyFilesystemSkip)(
    `on a full disk, says "disk full", leaves no partial file and the old one as it was${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async () => {
      const disk = mountTinyFilesystem();
      try {
        const shot = path.join(disk.dir, 'shot.png');
        fs.writeFileSync(shot, 'the picture of before', { mode: 0o600 });
        disk.fill();
        const before = fs.readdirSync(disk.dir).sort();
        await expect(writePrivateFile(shot, Buffer.alloc(8192, 1))).rejects.toThrow(`${shot}: disk full`);
        expect(() => writePrivateFileSync(shot, Buffer.alloc(8192, 1))).toThrow(`${shot}: disk full`);
        expect(fs.readFileSync(shot, 'utf8')).toBe('the picture of before');
        expect(fs.readdirSync(disk.dir).sort()).toEqual(before);
      } finally {
        disk.unmount();
      }
    },
  );

  it.skipIf(tinyFilesystemSkip)(
    `says "read-only file system" where Node's recursive mkdir says "no such file"${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    () => {
      const disk = mountTinyFilesystem({ readOnly: true });
      try {
        expect(() => ensureDirectory(path.join(disk.dir, 'a', 'b'))).toThrow(`${path.join(disk.dir, 'a', 'b')}: read-only file system`);
      } finally {
        disk.unmount();
      }
    },
  );
});
