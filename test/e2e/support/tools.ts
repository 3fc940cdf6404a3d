import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable, missingProgramsReason, programsRequired } from '../../support/programs.js';

export { findExecutable } from '../../support/programs.js';

/** The repository root (test/e2e/support -> ../../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The launcher the tests drive, exactly as users run it; needs `npm run build`. */
export const VCONSOLE_BIN = join(REPO_ROOT, 'bin', 'vconsole.js');
const BUILT_CLI = join(REPO_ROOT, 'dist', 'src', 'cli.js');

/** Per-test deadline, passed explicitly so it holds under `npm test`'s shorter default too. */
export const E2E_TEST_TIMEOUT_MS = 180_000;
/** Deadline of a suite's beforeAll that boots VMs and X. */
export const E2E_SETUP_TIMEOUT_MS = 240_000;

export interface E2eGate {
  /** Why the suite cannot run here, or undefined when everything it needs is present. */
  skip?: string;
}

/**
 * What is missing for a suite that runs `tools`, as one line; undefined when nothing is. A tool
 * that scripts/e2e-packages.txt does not list throws, on any machine: it is the test's bug.
 */
export function missingToolsReason(
  tools: readonly string[],
  found: (tool: string) => boolean,
  platform: string,
  built: boolean,
): string | undefined {
  if (platform !== 'linux') return `end-to-end tests need Linux (Xvfb, QEMU, Debian packages); this is ${platform}`;
  const problems: string[] = [];
  const missing = missingProgramsReason(tools, found);
  if (missing) problems.push(missing);
  if (!built) problems.push('vconsole is not built (run npm run build)');
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/**
 * Gates a suite on the programs it runs. Returns `{skip: reason}` when one is missing, for
 * `describe.skipIf(gate.skip)`, and prints the reason once so `npm test` says why. With
 * `VCONSOLE_E2E=required` a missing tool throws instead, which fails the test file.
 */
export function requireTools(tools: readonly string[]): E2eGate {
  const reason = missingToolsReason(tools, (tool) => findExecutable(tool) !== undefined, process.platform, existsSync(BUILT_CLI));
  if (!reason) return {};
  if (programsRequired()) throw new Error(`VCONSOLE_E2E=required but ${reason}`);
  process.stderr.write(`end-to-end tests skipped: ${reason}\n`);
  return { skip: reason };
}

/** A suite title that carries the skip reason, so the reporter shows it next to the skipped suite. */
export function gatedTitle(title: string, gate: E2eGate): string {
  return gate.skip ? `${title} [skipped: ${gate.skip}]` : title;
}
