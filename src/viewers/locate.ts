import path from 'node:path';
import type { HostPlatform, ViewerEnvironment } from './viewer-io.js';

/** Path functions of the OS being described, not of the machine running the code. */
export function pathFor(platform: HostPlatform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** An environment variable; names are case-insensitive on Windows (`Path`, `PATH`). */
function envValue(system: ViewerEnvironment, name: string): string | undefined {
  const direct = system.env[name];
  if (direct !== undefined || system.platform !== 'win32') return direct;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(system.env)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** True when `file` exists and may be run. */
export function isRunnable(system: ViewerEnvironment, file: string): boolean {
  if (!system.fileExists(file)) return false;
  if (system.platform === 'win32' || !system.isExecutable) return true;
  return system.isExecutable(file);
}

/** PATH entries in order, without empty entries or Windows quotes. */
function pathDirectories(system: ViewerEnvironment): string[] {
  const raw = envValue(system, 'PATH') ?? '';
  const separator = system.platform === 'win32' ? ';' : ':';
  return raw
    .split(separator)
    .map((entry) => entry.trim().replace(/^"(.*)"$/, '$1'))
    .filter((entry) => entry.length > 0);
}

/**
 * Executable names to try for `name` in one directory: on Windows each PATHEXT extension
 * (lower-cased; the real file system ignores case), on POSIX the name itself.
 */
function executableNames(system: ViewerEnvironment, name: string): string[] {
  if (system.platform !== 'win32') return [name];
  const extensions = (envValue(system, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((ext) => ext.trim().toLowerCase())
    .filter((ext) => ext.startsWith('.'));
  const hasExtension = extensions.some((ext) => name.toLowerCase().endsWith(ext));
  return hasExtension ? [name] : extensions.map((ext) => name + ext);
}

/** The first runnable `name` in PATH (then in `extraDirs`), like a shell would find it. */
export function findOnPath(system: ViewerEnvironment, name: string, extraDirs: string[] = []): string | undefined {
  const p = pathFor(system.platform);
  const seen = new Set<string>();
  for (const dir of [...pathDirectories(system), ...extraDirs]) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const candidate of executableNames(system, name)) {
      const full = p.join(dir, candidate);
      if (isRunnable(system, full)) return full;
    }
  }
  return undefined;
}

/** The user's home directory (HOME, or USERPROFILE on Windows). */
export function homeDirectory(system: ViewerEnvironment): string | undefined {
  return envValue(system, 'HOME') || (system.platform === 'win32' ? envValue(system, 'USERPROFILE') : undefined) || undefined;
}

/** `C:\Program Files` and `C:\Program Files (x86)` as this machine names them, deduplicated. */
export function programFilesDirectories(system: ViewerEnvironment): string[] {
  const drive = envValue(system, 'SystemDrive') || 'C:';
  const dirs = [
    envValue(system, 'ProgramFiles') || `${drive}\\Program Files`,
    envValue(system, 'ProgramW6432'),
    envValue(system, 'ProgramFiles(x86)') || `${drive}\\Program Files (x86)`,
  ];
  const unique: string[] = [];
  for (const dir of dirs) {
    if (dir && !unique.some((u) => u.toLowerCase() === dir.toLowerCase())) unique.push(dir);
  }
  return unique;
}

/** Compares version-like strings numerically: `1.9.0` < `1.14.1`, `v11.0-256` > `v7.0`. */
function compareVersions(a: string, b: string): number {
  const parts = (s: string) => (s.match(/\d+/g) ?? []).map(Number);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return a.localeCompare(b);
}

/**
 * Entries of `dir` matching `pattern`, newest version first, so a glob like
 * `VirtViewer v*` picks the latest install the way virtctl picks the last match.
 */
export function versionedEntries(system: ViewerEnvironment, dir: string, pattern: RegExp): string[] {
  const entries = system.listDir?.(dir) ?? [];
  return entries.filter((name) => pattern.test(name)).sort((a, b) => compareVersions(b, a));
}
