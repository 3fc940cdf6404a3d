// A Tab: `vconsole complete -- WORDS`, answered from the completion cache (completion-cache.ts)
// and never from an API. bin/vconsole.js comes here before loading the command line, so a Tab
// loads @bomb.sh/tab and these few modules (~100 ms of a process, most of it Node.js starting);
// only the first Tab of a vconsole build loads the command line, to describe it (the model).
// Names missing or older than COMPLETION_STALE_MS are listed again by a detached refresher
// (completion-refresh.ts), one per cache entry at a time: the next Tab has them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMPLETION_STALE_MS, completionCacheDir, entryName, readEntry, refreshBoundMs, takeLock } from './completion-cache.js';
import { configKey, providerKey, typedFlags } from './completion-keys.js';
import { completesTarget, completionModel, tabRoot, type CompletionModel, type ProgramMaker } from './completion-model.js';

/** The argument that makes vconsole a refresher (hidden: only a Tab starts one). */
const REFRESH_COMMAND = '__complete-refresh';

/** `complete -- WORDS` or a refresher's arguments (bin/vconsole.js and cli.ts route both here). */
export async function completionMain(args: readonly string[], makeProgram: ProgramMaker): Promise<void> {
  const rest = args.slice(1);
  const words = rest[0] === '--' ? rest.slice(1) : rest;
  if (args[0] === REFRESH_COMMAND) {
    const { refreshCompletion } = await import('./completion-refresh.js');
    return refreshCompletion(args.slice(1), makeProgram);
  }
  const startRefresh = await answerTab(words, (text) => process.stdout.write(text), makeProgram);
  // The answer is out (stdout is a pipe: written at once): the refresher starts as this process ends.
  startRefresh();
  process.exit(0);
}

/**
 * Prints the completions of `words`: commands, flags, flag values, and the targets the cache
 * has. Returns what starts the refresh of the entries it found missing or stale (if any), for
 * the caller to call once the answer is out.
 */
export async function answerTab(words: string[], write: (text: string) => void, makeProgram: ProgramMaker): Promise<() => void> {
  const dir = completionCacheDir();
  const model = await completionModel(dir, makeProgram);
  const typed = words.slice(0, -1);
  const { targets, refresh } = completesTarget(model, words) ? cachedTargets(model, dir, typed) : { targets: [], refresh: [] };
  const root = await tabRoot(model, targets);
  const log = console.log;
  // The library prints with console.log; here that goes where the command writes (stdout, which the shell reads).
  console.log = (...parts: unknown[]) => write(`${parts.join(' ')}\n`);
  try {
    root.parse(words);
  } finally {
    console.log = log;
  }
  return () => {
    if (refresh.length > 0) startRefresher(refresh, typed);
  };
}

/**
 * The local names (the demo's) and every name the cache has for the line's flags; and the
 * entries missing or stale whose refresh no one held: their locks are now this Tab's.
 */
function cachedTargets(model: CompletionModel, dir: string, typed: string[]): { targets: string[]; refresh: string[] } {
  const flags = typedFlags(model, typed);
  const entries = [
    { id: 'config', key: configKey(flags), staleMs: Infinity },
    ...model.listingProviders.map((id) => ({ id, key: providerKey(model, flags, id), staleMs: COMPLETION_STALE_MS })),
  ];
  const names = [...model.localNames];
  const refresh: string[] = [];
  for (const { id, key, staleMs } of entries) {
    const name = entryName(key);
    const entry = readEntry<string[]>(dir, name, key);
    if (entry) names.push(...entry.value);
    if ((!entry || entry.ageMs > staleMs) && lockFor(dir, name)) refresh.push(id);
  }
  return { targets: [...new Set(names)].sort(), refresh };
}

/** The refresh lock of an entry, if no refresher holds it (and the cache can be written at all). */
function lockFor(dir: string, name: string): boolean {
  try {
    return takeLock(dir, name, refreshBoundMs());
  } catch {
    return false;
  }
}

/** Starts the refresher of `ids` for the line's words, detached: the Tab neither waits for it nor hears from it. */
function startRefresher(ids: readonly string[], words: readonly string[]): void {
  // bin/vconsole.js under Node.js; the single executable is its own script.
  const given = process.argv[1];
  const script = given && path.resolve(given) !== process.execPath && fs.existsSync(given) ? [given] : [];
  const child = spawn(process.execPath, [...script, REFRESH_COMMAND, ids.join(','), '--', ...words], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  // Nobody waits for it: it yields the CPU to the Tab ending and to what the user does next.
  if (child.pid !== undefined) {
    try {
      os.setPriority(child.pid, 10);
    } catch {
      // Not allowed here: it runs at the Tab's priority.
    }
  }
  child.unref();
}

/**
 * Whether `args` (the command line after the program) is a Tab's question as the scripts ask it
 * (`complete -- WORDS`) or a refresher's; anything else (`complete --help`) is commander's.
 */
export function isCompletionRequest(args: readonly string[]): boolean {
  return (args[0] === 'complete' && args[1] === '--') || args[0] === REFRESH_COMMAND;
}
