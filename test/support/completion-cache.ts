// The completion cache of a test's HOME (src/commands/completion-cache.ts), as tests wait on it:
// a Tab starts a detached refresher holding a lock file per entry it lists; the refresh is done
// when no lock is left.
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from './wait.js';

/** Where completion keeps its cache for a HOME without XDG_CACHE_HOME. */
export function completionCacheIn(home: string): string {
  return path.join(home, '.cache', 'vconsole', 'completion');
}

/** The lock files in `dir` (one per entry being refreshed). */
export function refreshLocks(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.lock')) : [];
}

/** The pids the locks in `dir` name (the refreshers holding them). */
export function refresherPids(dir: string): number[] {
  return refreshLocks(dir).flatMap((name) => {
    const pid = Number(fs.readFileSync(path.join(dir, name), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? [pid] : [];
  });
}

/** Whether process `pid` is still there. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The refreshers running for `home` (found in /proc by their argument and HOME, whether or not they hold a lock). */
export function refreshersOf(home: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args.includes('__complete-refresh')) return [];
      return fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOME=${home}`) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** Waits until every refresh started for `home` is done: its locks given back, its refreshers gone. */
export async function refreshesDone(home: string): Promise<void> {
  const dir = completionCacheIn(home);
  await waitFor(
    () => refreshLocks(dir).length === 0 && refreshersOf(home).length === 0,
    `the completion refreshes in ${dir} to end`,
    30_000,
  );
}

/** The cache entries (not the model) in `dir`, parsed. */
export function cacheEntries(dir: string): { file: string; key: Record<string, unknown>; value: string[] }[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.startsWith('model-'))
    .map((name) => ({
      file: path.join(dir, name),
      ...(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { key: Record<string, unknown>; value: string[] }),
    }));
}
