// `npm test`: the build, then the vitest projects in two lanes that run at once, with the lint
// gate (`npm run lint`) and the type check (`npm run typecheck`) beside them at the lowest CPU
// priority.
//
// - The screens lane is the `e2e` project: the end-to-end files that start VMs with an X server,
//   viewers or a terminal, one file at a time. They spend most of their time waiting on QEMU,
//   windows and screens (the client matrix: about a quarter of two cores over six minutes), so
//   they run at the terminal's priority and get a core when they need one.
// - The main lane is everything else, in its groups (unit and integration, then `e2e-pairs`), two
//   files at a time, at a slightly lower priority (MAIN_LANE_NICENESS): it takes the cores the
//   screens leave, and yields them when a viewer or a VM needs one.
// One lane after the other took ten minutes longer on two cores than the two side by side.
//
// The checks are as much a part of `npm test` (either failing fails it) but add no time to it.
// What they print comes after vitest's reports, whole; the screens lane's report follows the main
// lane's (held until then, never interleaved with it). Arguments go to vitest; with a `--project`
// or a file filter among them there is one vitest, as `npx vitest run` would be, and no lanes.
// A JSON report (`--outputFile.json=F`) is written once a lane: F, and F with `.screens` before
// its extension.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The script's own test puts a stand-in in vitest's place.
const vitestBin = process.env.VCONSOLE_TEST_VITEST ?? fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));

const SCREENS_LANE = ['e2e'];
const MAIN_LANE = ['unit', 'integration', 'e2e-pairs'];
/** The main lane's niceness: five above `npm test`'s own (the screens lane keeps that). */
const MAIN_LANE_NICENESS = Math.min(19, os.getPriority() + 5);
const SCREENS_LANE_NICENESS = os.getPriority();
const CHECKS_NICENESS = 19;
/** What this script started and has not seen end: a SIGTERM of `npm test` ends them too. */
const running = new Set();
/** vitest's options that take the next argument as their value when written without `=`. */
const OPTIONS_WITH_VALUE = /^(--reporter|--outputFile(\.\w+)?|--project|--shard|-t|--testNamePattern|--config|-c|--root|-r|--dir)$/;

/** Runs `npm run NAME` with the terminal; resolves with its exit code. */
function inherit(name) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

/**
 * Starts `command args` at `niceness`, or at this process's own where that is higher already (set
 * by a wrapper before the command starts, so every process it starts inherits it). The wrapper
 * passes a SIGTERM on; a Ctrl+C reaches the command from the terminal itself. Resolves `done`
 * with the exit code (1 for a signal).
 */
function atPriority(niceness, command, args, stdio) {
  const wrapper = `const os = require('node:os');
if (Number(process.argv[1]) > os.getPriority()) os.setPriority(Number(process.argv[1]));
const child = require('node:child_process').spawn(process.argv[2], process.argv.slice(3), { stdio: 'inherit', shell: process.platform === 'win32' });
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('error', () => process.exit(1));
child.on('close', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));`;
  const env = process.stdout.isTTY && stdio !== 'inherit' ? { ...process.env, FORCE_COLOR: '1' } : process.env;
  const child = spawn(process.execPath, ['-e', wrapper, String(niceness), command, ...args], { cwd: root, stdio, env });
  running.add(child);
  const done = new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve(signal ? 1 : (code ?? 1));
    });
  });
  return { child, done };
}

/** Starts `npm run NAME` at the lowest priority, its output kept to be printed after vitest's. */
function beside(name) {
  const started = Date.now();
  const { child, done } = atPriority(CHECKS_NICENESS, npm, ['run', '--silent', name], ['ignore', 'pipe', 'pipe']);
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return {
    child,
    done: done.then((code) => ({
      name,
      code,
      output: Buffer.concat(output).toString(),
      seconds: Math.round((Date.now() - started) / 1000),
    })),
  };
}

/** Whether `args` ask for the whole suite (no `--project`, no file filter): then the lanes run. */
function wholeSuite(args) {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('-')) return false;
    if (/^--project(=|$)/.test(arg)) return false;
    if (OPTIONS_WITH_VALUE.test(arg)) i++;
  }
  return true;
}

/** `args` for the lane called `lane`: a JSON report's file gets `.LANE` before its extension. */
function laneArgs(args, lane) {
  const renamed = (file) => file.replace(/(\.[^./]*)?$/, (ext) => `.${lane}${ext}`);
  return args.map((arg, i) => {
    const inline = /^(--outputFile(?:\.\w+)?=)(.*)$/.exec(arg);
    if (inline) return inline[1] + renamed(inline[2]);
    return i > 0 && /^--outputFile(\.\w+)?$/.test(args[i - 1]) ? renamed(arg) : arg;
  });
}

const projects = (names) => names.flatMap((name) => ['--project', name]);

/** The two lanes side by side; the screens lane's output is printed once the main lane's is. */
async function lanes(args) {
  const main = atPriority(MAIN_LANE_NICENESS, process.execPath, [vitestBin, 'run', ...projects(MAIN_LANE), ...args], 'inherit');
  const screens = atPriority(
    SCREENS_LANE_NICENESS,
    process.execPath,
    [vitestBin, 'run', ...projects(SCREENS_LANE), ...laneArgs(args, 'screens')],
    ['inherit', 'pipe', 'pipe'],
  );
  const held = [];
  let live = false;
  for (const [stream, out] of [
    [screens.child.stdout, process.stdout],
    [screens.child.stderr, process.stderr],
  ]) {
    stream.on('data', (chunk) => (live ? out.write(chunk) : held.push([out, chunk])));
  }
  const mainCode = await main.done;
  process.stdout.write('\n::: the screens lane (the end-to-end files with X servers, viewers and terminals, one at a time)\n');
  for (const [out, chunk] of held.splice(0)) out.write(chunk);
  live = true;
  const screensCode = await screens.done;
  return mainCode !== 0 ? mainCode : screensCode;
}

/** One vitest, as `npx vitest run ARGS`. */
function oneVitest(args) {
  return atPriority(os.getPriority(), process.execPath, [vitestBin, 'run', ...args], 'inherit').done;
}

const built = await inherit('build');
if (built !== 0) process.exit(built);

const checks = [beside('lint'), beside('typecheck')];
// Ctrl+C reaches vitest through the terminal; the checks, their output held, are ended with it.
process.on('SIGINT', () => checks.forEach(({ child }) => child.kill('SIGTERM')));
process.on('SIGTERM', () => {
  for (const child of running) child.kill('SIGTERM');
  process.exit(143);
});

const args = process.argv.slice(2);
const vitest = wholeSuite(args) ? await lanes(args) : await oneVitest(args);

let failed = vitest !== 0;
for (const { name, code, output, seconds } of await Promise.all(checks.map(({ done }) => done))) {
  process.stdout.write(`\n::: npm run ${name} (beside the tests, ${seconds} s): ${code === 0 ? 'passed' : 'FAILED'}\n${output}`);
  if (code !== 0) {
    failed = true;
    console.log(`npm test: \`npm run ${name}\` failed (its output is above)`);
  }
}
process.exit(failed ? 1 : 0);
