import fs from 'node:fs';
import path from 'node:path';
import { RECORD_EXTENSION, SOCKET_EXTENSION, processAlive, readHeldRecord, removeStale, type HeldRecord } from './held-record.js';
import { checkRuntimeDir } from './runtime-dir.js';

/**
 * The consoles held in `dir` now, oldest first: those whose record names a running vconsole and
 * whose socket is there. What a dead holder left (its record, its socket) is removed. A
 * directory that is absent, or that is not this user's alone, holds nothing to list.
 */
export function heldConsoles(dir: string, uid: number = process.getuid?.() ?? -1): HeldRecord[] {
  let names: string[];
  try {
    checkRuntimeDir(dir, uid);
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const held: HeldRecord[] = [];
  for (const file of names) {
    if (!file.endsWith(RECORD_EXTENSION)) continue;
    const name = file.slice(0, -RECORD_EXTENSION.length);
    const record = readHeldRecord(path.join(dir, file));
    const socketThere = fs.existsSync(path.join(dir, `${name}${SOCKET_EXTENSION}`));
    if (record && socketThere && processAlive(record.pid)) held.push(record);
    else if (!record || !processAlive(record.pid)) removeStale(dir, name);
  }
  return held.sort((a, b) => a.since.localeCompare(b.since) || a.target.localeCompare(b.target));
}
