// scripts/test.mjs, which `npm test` runs: the build first, then vitest with the lint gate and the
// type check beside it at the lowest CPU priority. Run against a stand-in npm (each `npm run NAME`
// answers as the test says, and tells its niceness) and the real vitest on one small file: a
// failing check fails `npm test` and its output is printed whole after vitest's report.
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

/** Runs scripts/test.mjs with an npm whose `run NAME` exits with `exits[NAME]` (0 if not named). */
function npmTest(exits: Record<string, number>): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-npm-test-'));
  dirs.push(dir);
  const cases = Object.entries(exits)
    .map(([name, code]) => `  ${name}) exit ${code} ;;`)
    .join('\n');
  const npm = path.join(dir, 'npm');
  writeFileSync(npm, `#!/bin/sh\nname="$3"\necho "npm run $name at niceness $(nice)"\ncase "$name" in\n${cases}\nesac\nexit 0\n`);
  chmodSync(npm, 0o755);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, '--project', 'unit', 'src/text/', '--reporter=dot'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
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
});
