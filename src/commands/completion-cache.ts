// The per-user cache shell completion answers from: $XDG_CACHE_HOME/vconsole/completion (else
// ~/.cache/vconsole/completion), a 0700 directory of 0600 JSON files, each named by the hash of
// its key (completion-keys.ts: where the names come from, never a secret). An entry's age is its
// file's modification time. A refresh holds `NAME.lock` (created exclusively) while it lists; a
// lock older than the refresh bound is a refresher that crashed, and is taken over.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** An entry older than this is answered from and refreshed in the background. */
export const COMPLETION_STALE_MS = 30_000;

/** How long a refresher may run before it ends itself (VCONSOLE_COMPLETION_REFRESH_MS for tests). */
export function refreshBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.VCONSOLE_COMPLETION_REFRESH_MS);
  return Number.isFinite(given) && given > 0 ? given : 20_000;
}

/** The cache directory (a Tab makes it: makeCacheDir). */
export function completionCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'vconsole', 'completion');
}

/** The file name an entry of `key` has: a hash, so nothing of the key is in a name. */
export function entryName(key: unknown): string {
  return createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 32);
}

interface CacheEntry<T> {
  value: T;
  /** ms since it was written. */
  ageMs: number;
}

/** The entry `name` holds, or undefined when there is none or it is not what was written. */
export function readEntry<T>(dir: string, name: string, key: unknown): CacheEntry<T> | undefined {
  const file = path.join(dir, `${name}.json`);
  try {
    const { mtimeMs } = fs.statSync(file);
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { key: unknown; value: T };
    // A hash collision or a file from an older format answers nothing.
    if (JSON.stringify(stored.key) !== JSON.stringify(key)) return undefined;
    return { value: stored.value, ageMs: Math.max(0, Date.now() - mtimeMs) };
  } catch {
    return undefined;
  }
}

/** Makes the cache directory, 0700 (a Tab does, taking a lock or writing the model). */
export function makeCacheDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Writes the entry whole (a temporary file renamed over it), 0600, into the directory as it is:
 * a refresher whose cache was removed meanwhile (a HOME deleted) makes none anew.
 */
export function writeEntry(dir: string, name: string, key: unknown, value: unknown): void {
  const file = path.join(dir, `${name}.json`);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify({ key, value }), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/**
 * Takes the refresh lock of entry `name`: true when this process now holds it, false when a
 * refresher younger than `boundMs` holds it. An older lock is a crashed refresher's: taken over.
 */
export function takeLock(dir: string, name: string, boundMs: number): boolean {
  const lock = path.join(dir, `${name}.lock`);
  makeCacheDir(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      if (Date.now() - lockTime(lock) < boundMs + 5_000) return false;
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}

function lockTime(lock: string): number {
  try {
    return fs.statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

/** Marks the lock of entry `name` (taken by the Tab that started this process) as this process's. */
export function claimLock(dir: string, name: string): void {
  fs.writeFileSync(path.join(dir, `${name}.lock`), `${process.pid}\n`, { mode: 0o600 });
}

/** Gives the lock of entry `name` back. */
export function releaseLock(dir: string, name: string): void {
  fs.rmSync(path.join(dir, `${name}.lock`), { force: true });
}
