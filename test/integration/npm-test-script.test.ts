// scripts/test.mjs, which `npm test` runs: the build first, then vitest with the lint gate and the
// type check beside it at the lowest CPU priority. Run against a stand-in npm (each `npm run NAME`
// answers as the test says, and tells its niceness) and the real vitest on one small file: a
// failing check fails `npm test` and its output is printed whole after vitest's report. The whole
// suite's two lanes are run against a stand-in vitest that tells its arguments and niceness.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = path.join(ROOT, 'scripts', 'test.mjs');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A stand-in vitest: prints its lane, niceness and arguments. The screens lane (`--project e2e`)
 * writes `marker` and prints its report at once, exiting with SCREENS_EXIT; the main lane prints
 * its report only once the marker exists, so it finishes only if both lanes run at once.
 */
const STAND_IN_VITEST = `const fs = require('node:fs');
const args = process.argv.slice(2);
const lane = args.includes('e2e') ? 'screens' : 'main';
console.log('vitest ' + lane + ' at niceness ' + require('node:os').getPriority() + ': ' + args.join(' '));
if (lane === 'screens') {
  fs.writeFileSync(process.env.LANE_MARKER, '');
  console.log('screens report');
  process.exit(Number(process.env.SCREENS_EXIT ?? 0));
}
const poll = setInterval(() => {
  if (!fs.existsSync(process.env.LANE_MARKER)) return;
  clearInterval(poll);
  console.log('main report');
}, 20);
`;

/** Runs scripts/test.mjs with an npm whose `run NAME` exits with `exits[NAME]` (0 if not named). */
function npmTest(
  exits: Record<string, number>,
  args = ['--project', 'unit', 'src/text/', '--reporter=dot'],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  const dir = tempDir();
  const cases = Object.entries(exits)
    .map(([name, code]) => `  ${name}) exit ${code} ;;`)
    .join('\n');
  const npm = path.join(dir, 'npm');
  writeFileSync(npm, `#!/bin/sh\nname="$3"\necho "npm run $name at niceness $(nice)"\ncase "$name" in\n${cases}\nesac\nexit 0\n`);
  chmodSync(npm, 0o755);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}`, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-npm-test-'));
  dirs.push(dir);
  return dir;
}

/** Runs the whole suite's form of scripts/test.mjs (no filter) against the stand-in vitest. */
function wholeSuite(screensExit: number) {
  const dir = tempDir();
  const vitest = path.join(dir, 'vitest.cjs');
  writeFileSync(vitest, STAND_IN_VITEST);
  const env = { VCONSOLE_TEST_VITEST: vitest, LANE_MARKER: path.join(dir, 'screens-started'), SCREENS_EXIT: String(screensExit) };
  return npmTest({}, ['--reporter=default', '--outputFile.json', path.join(dir, 'reports', 'tests.json')], env);
}

describe.skipIf(process.platform === 'win32')('npm test (scripts/test.mjs)', () => {
  it('fails when the lint gate fails, printing its output after vitest, and runs the checks at the lowest priority', async () => {
    const { code, output } = await npmTest({ lint: 3 });
    expect(code).toBe(1);
    const vitestReport = output.indexOf('Test Files');
    expect(vitestReport).toBeGreaterThan(-1);
    // The checks' output follows vitest's report; the build ran first, at the terminal's priority.
    expect(output.indexOf('::: npm run lint')).toBeGreaterThan(vitestReport);
    expect(output).toMatch(/::: npm run lint \(beside the tests, \d+ s\): FAILED\nnpm run lint at niceness 19\n/);
    expect(output).toMatch(/::: npm run typecheck \(beside the tests, \d+ s\): passed\nnpm run typecheck at niceness 19\n/);
    expect(output).toContain(`npm run build at niceness ${getPriority()}`);
    expect(output).toContain('npm test: `npm run lint` failed');
  }, 120_000);

  it('passes when vitest and both checks pass, and stops before vitest when the build fails', async () => {
    expect((await npmTest({})).code).toBe(0);
    const broken = await npmTest({ build: 2 });
    expect(broken.code).toBe(2);
    expect(broken.output).not.toContain('Test Files');
    expect(broken.output).not.toContain('npm run lint');
  }, 120_000);

  it('runs the screens lane beside the main lane, at the terminal priority while the main lane yields, its report after the main one', async () => {
    const { code, output } = await wholeSuite(0);
    expect(code).toBe(0);
    const nice = getPriority();
    expect(output).toMatch(
      new RegExp(
        `vitest main at niceness ${Math.min(19, nice + 5)}: run --project unit --project integration --project e2e-pairs --reporter=default --outputFile.json \\S+/reports/tests\\.json\\n`,
      ),
    );
    expect(output).toMatch(
      new RegExp(
        `vitest screens at niceness ${nice}: run --project e2e --reporter=default --outputFile.json \\S+/reports/tests\\.screens\\.json\\n`,
      ),
    );
    // The screens lane finished first, yet its output comes after the main lane's report.
    expect(output.indexOf('screens report')).toBeGreaterThan(output.indexOf('main report'));
    expect(output.indexOf('::: npm run lint')).toBeGreaterThan(output.indexOf('screens report'));
  }, 120_000);

  it('fails when only the screens lane fails', async () => {
    const { code, output } = await wholeSuite(1);
    expect(output).toContain('main report');
    expect(code).toBe(1);
  }, 120_000);
});
