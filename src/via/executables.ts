// Which single executable fits a host, by what its `uname -sm` says, and where this vconsole
// finds one: the names `npm run package` gives them (scripts/package.mjs).
import { createRequire } from 'node:module';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A host's OS and architecture in the single executables' words: `linux-x64`, `macos-x64`, ... */
interface HostKind {
  /** As uname said it, for messages: `Linux x86_64`. */
  said: string;
  /** The executable's name part, e.g. `linux-x64`, or undefined when none is made for it. */
  target?: string;
}

const OS_NAMES: Record<string, string> = { linux: 'linux', darwin: 'macos' };
const ARCH_NAMES: Record<string, string> = { x86_64: 'x64', amd64: 'x64', x64: 'x64', aarch64: 'arm64', arm64: 'arm64' };

/** What `uname -sm` printed, as the executable that runs there. */
export function hostKindFromUname(output: string): HostKind {
  const said = output.trim().split('\n')[0]?.trim() ?? '';
  const [os, arch] = said.toLowerCase().split(/\s+/);
  const target = os && arch && OS_NAMES[os] && ARCH_NAMES[arch] ? `${OS_NAMES[os]}-${ARCH_NAMES[arch]}` : undefined;
  return { said, target };
}

/** The single executable's file name for a target, as scripts/package.mjs names it. */
export function executableName(target: string): string {
  return `vconsole-${target}${target.startsWith('win-') ? '.exe' : ''}`;
}

/** This process's own target, when it is a single executable; else undefined. */
function runningExecutableTarget(): string | undefined {
  if (!isSingleExecutable()) return undefined;
  const os = OS_NAMES[process.platform];
  const arch = ARCH_NAMES[process.arch];
  return os && arch ? `${os}-${arch}` : undefined;
}

/**
 * Where to look for `vconsole-TARGET`: $VCONSOLE_EXECUTABLES alone when set; else beside the
 * running single executable, and the checkout's dist/bin (where `npm run package` writes).
 */
function executableDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.VCONSOLE_EXECUTABLES) return [env.VCONSOLE_EXECUTABLES];
  return [...(isSingleExecutable() ? [path.dirname(process.execPath)] : []), ...checkoutBin()];
}

/** dist/bin of the checkout this file was built into (dist/src/via/), when it is a file on disk. */
function checkoutBin(): string[] {
  try {
    return [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin')];
  } catch {
    return []; // bundled into the single executable: no checkout around it
  }
}

/** The file to copy for `target`, and every place looked in (for the message when there is none). */
export function findExecutable(target: string, env: NodeJS.ProcessEnv = process.env): { file?: string; lookedIn: string[] } {
  const dirs = executableDirs(env);
  for (const dir of dirs) {
    const file = path.join(dir, executableName(target));
    if (existsSync(file) && statSync(file).isFile()) return { file, lookedIn: dirs };
  }
  if (!env.VCONSOLE_EXECUTABLES && runningExecutableTarget() === target) return { file: process.execPath, lookedIn: dirs };
  return { lookedIn: dirs };
}

function isSingleExecutable(): boolean {
  try {
    return Boolean((createRequire(import.meta.url)('node:sea') as { isSea(): boolean }).isSea());
  } catch {
    return false;
  }
}
