// `npm test`: the build, then every vitest project in its group (unit and integration, then the
// end-to-end files), with the lint gate (`npm run lint`) and the type check (`npm run typecheck`)
// running beside vitest at the lowest CPU priority. They are as much a part of `npm test` as
// before (either failing fails it), but they no longer add their two or three minutes to it: on
// a 2-core machine the unit and integration tests keep both cores, and the checks take the time
// the end-to-end files leave idle while they wait on VMs, viewers and terminals. What they print
// comes after vitest's report, whole, never interleaved with it. Arguments go to vitest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

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
 * Starts `npm run NAME` at the lowest priority (its children inherit it: the priority is set by a
 * wrapper before npm starts), its output kept to be printed after vitest's.
 */
function beside(name) {
  const started = Date.now();
  const wrapper = `require('node:os').setPriority(19);
const r = require('node:child_process').spawnSync(process.argv[1], ['run', '--silent', process.argv[2]], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(r.status ?? 1);`;
  const child = spawn(process.execPath, ['-e', wrapper, npm, name], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const done = new Promise((resolve) => {
    child.on('error', (err) => resolve({ name, code: 1, output: `${err.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) =>
      resolve({
        name,
        code: signal ? 1 : (code ?? 1),
        output: Buffer.concat(output).toString(),
        seconds: Math.round((Date.now() - started) / 1000),
      }),
    );
  });
  return { child, done };
}

const built = await inherit('build');
if (built !== 0) process.exit(built);

const checks = [beside('lint'), beside('typecheck')];
// Ctrl+C reaches vitest through the terminal; the checks, started without it, end with it.
const stopChecks = () => checks.forEach(({ child }) => child.kill('SIGTERM'));
process.on('SIGINT', stopChecks);
process.on('SIGTERM', () => {
  stopChecks();
  process.exit(143);
});

const vitest = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  child.on('error', () => resolve(1));
  child.on('close', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
});

let failed = vitest !== 0;
for (const { name, code, output, seconds } of await Promise.all(checks.map(({ done }) => done))) {
  process.stdout.write(`\n::: npm run ${name} (beside the tests, ${seconds} s): ${code === 0 ? 'passed' : 'FAILED'}\n${output}`);
  if (code !== 0) {
    failed = true;
    console.log(`npm test: \`npm run ${name}\` failed (its output is above)`);
  }
}
process.exit(failed ? 1 : 0);
