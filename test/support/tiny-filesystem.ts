import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A small tmpfs of its own, for tests of a disk that fills or a read-only file system: the
 * real kernel errors (ENOSPC, EROFS), which no mock reproduces faithfully. Needs root and
 * mount(8); `skip` says why when this machine cannot.
 */
export interface TinyFilesystem {
  dir: string;
  /** Writes a filler file until the file system says it is full. */
  fill(): void;
  unmount(): void;
}

export const tinyFilesystemSkip: string | undefined = (() => {
  if (process.platform !== 'linux') return 'tmpfs mounts are Linux only';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-tmpfs-probe-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { encoding: 'utf8' });
    if (mounted.status !== 0) return `mount -t tmpfs is unavailable here (${(mounted.stderr || mounted.error?.message || '').trim()})`;
    spawnSync('umount', [probe]);
    return undefined;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
})();

/** Mounts a tmpfs of `sizeKiB` (read-only when asked) on a new directory. */
export function mountTinyFilesystem(options: { sizeKiB?: number; readOnly?: boolean } = {}): TinyFilesystem {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-tmpfs-'));
  const mountOptions = `size=${options.sizeKiB ?? 64}k,mode=0700${options.readOnly ? ',ro' : ''}`;
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', mountOptions, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`mount tmpfs on ${dir}: ${mounted.stderr}`);
  return {
    dir,
    fill() {
      const fd = fs.openSync(path.join(dir, 'filler'), 'a');
      const block = Buffer.alloc(4096, 0x55);
      try {
        for (;;) fs.writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(fd);
      }
      // What is left of a last block: a byte at a time, till not even one fits.
      const tail = fs.openSync(path.join(dir, 'filler-tail'), 'a');
      try {
        for (;;) fs.writeSync(tail, Buffer.alloc(1));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(tail);
      }
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
