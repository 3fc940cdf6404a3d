/**
 * The programs tests run and the Debian packages that bring them, read from
 * scripts/e2e-packages.txt: the same list scripts/e2e-deps.sh installs. A test that requires a
 * program no line of that list names fails at once, installed here or not, so a test cannot
 * need something a fresh machine's install step does not provide.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The list scripts/e2e-deps.sh installs. */
export const PACKAGE_LIST = fileURLToPath(new URL('../../scripts/e2e-packages.txt', import.meta.url));

/** One line of the list: a Debian package, how it is installed, the programs tests run from it. */
export interface ListedPackage {
  name: string;
  how: 'recommends' | 'bare' | 'guest';
  programs: string[];
}

/** The lines of a package list, without comments and blank lines. */
export function parsePackageList(text: string): ListedPackage[] {
  const listed: ListedPackage[] = [];
  for (const line of text.split('\n')) {
    const words = line.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const [name, how, ...programs] = words;
    if (how !== 'recommends' && how !== 'bare' && how !== 'guest')
      throw new Error(`${PACKAGE_LIST}: package ${name}: install as 'recommends', 'bare' or 'guest', not '${how ?? ''}'`);
    listed.push({ name, how, programs });
  }
  return listed;
}

let programPackages: ReadonlyMap<string, string> | undefined;

/** Which package brings each listed program. */
export function listedPrograms(): ReadonlyMap<string, string> {
  programPackages ??= new Map(
    parsePackageList(readFileSync(PACKAGE_LIST, 'utf8')).flatMap((pkg) => pkg.programs.map((program) => [program, pkg.name] as const)),
  );
  return programPackages;
}

/** The package that brings `program`; throws when the list names none, which is the test's bug. */
export function packageOf(program: string): string {
  const name = listedPrograms().get(program);
  if (name === undefined)
    throw new Error(
      `a test requires ${program}, which no line of scripts/e2e-packages.txt installs: add the Debian package that brings it there`,
    );
  return name;
}

/** True when `VCONSOLE_E2E=required`: a missing program fails the run instead of skipping it. */
export function programsRequired(): boolean {
  return process.env.VCONSOLE_E2E === 'required';
}

/** The absolute path of an executable on PATH, or undefined. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** What is missing of `programs`, as one line naming their packages; undefined when nothing is. */
export function missingProgramsReason(programs: readonly string[], found: (program: string) => boolean): string | undefined {
  // Every program is looked up, found or not: one the list does not name is the test's error.
  programs.forEach(packageOf);
  const missing = programs.filter((program) => !found(program));
  if (missing.length === 0) return undefined;
  const needed = [...new Set(missing.map(packageOf))];
  return `missing ${missing.join(', ')} (Debian: ${needed.join(' ')}; run scripts/e2e-deps.sh)`;
}

/**
 * For `describe.skipIf(...)` in tests outside test/e2e that run a program when it is there: the
 * reason to skip, or undefined. With `VCONSOLE_E2E=required` (CI) a missing program throws, which
 * fails the file instead of skipping it quietly.
 */
export function skipWithoutPrograms(programs: readonly string[]): string | undefined {
  const reason = missingProgramsReason(programs, (program) => findExecutable(program) !== undefined);
  if (reason && programsRequired()) throw new Error(`VCONSOLE_E2E=required but ${reason}`);
  return reason;
}
