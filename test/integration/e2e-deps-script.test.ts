// scripts/e2e-deps.sh, which .ci/run starts on a fresh Debian bookworm, run against stand-ins
// for dpkg, dpkg-query and apt-get (each records its command line): on a fresh machine the arm64
// architecture is added before `apt-get update`, and only then are the :arm64 packages asked
// for; a second run on the same machine installs nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/e2e-deps.sh');

/** A machine: which packages dpkg has, whether arm64 is a foreign architecture. */
function machine(options: { installed: 'none' | 'all'; arm64: boolean }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-e2e-deps-'));
  const log = path.join(dir, 'calls');
  const state = path.join(dir, 'arm64');
  if (options.arm64) writeFileSync(state, '');
  const tool = (name: string, body: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> '${log}'\n${body}\n`);
    chmodSync(file, 0o755);
  };
  tool('id', 'echo 0');
  tool(
    'dpkg',
    `case "$1" in --print-foreign-architectures) [ -e '${state}' ] && echo arm64; exit 0 ;; --add-architecture) touch '${state}' ;; esac`,
  );
  tool('dpkg-query', options.installed === 'all' ? "printf 'install ok installed'" : 'exit 1');
  tool('apt-get', `case "$*" in *:arm64*) [ -e '${state}' ] || { echo "E: no arm64" >&2; exit 100; } ;; esac`);
  return {
    dir,
    run: () => spawnSync('bash', [SCRIPT], { env: { PATH: `${dir}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 30_000 }),
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line && !line.startsWith('dpkg-query') && !line.startsWith('id')),
  };
}

describe('scripts/e2e-deps.sh', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('on a fresh bookworm adds arm64 to dpkg, then runs apt-get update, then installs, the :arm64 packages among them', () => {
    const fresh = machine({ installed: 'none', arm64: false });
    dirs.push(fresh.dir);
    const run = fresh.run();
    expect(run.status, run.stderr).toBe(0);
    const calls = fresh.calls();
    expect(calls.map((call) => call.split(' ').slice(0, 2).join(' '))).toEqual([
      'dpkg --print-foreign-architectures',
      'dpkg --add-architecture',
      'apt-get update',
      'apt-get install',
      'apt-get install',
    ]);
    expect(calls[1]).toBe('dpkg --add-architecture arm64');
    expect(calls[4]).toContain('--no-install-recommends');
    for (const name of ['libc6:arm64', 'libstdc++6:arm64', 'qemu-user-static', 'wine64']) expect(calls[4].split(' ')).toContain(name);
    expect(calls[3].split(' ')).toContain('qemu-system-x86');
  });

  it('adds no architecture dpkg has already', () => {
    const again = machine({ installed: 'none', arm64: true });
    dirs.push(again.dir);
    const run = again.run();
    expect(run.status, run.stderr).toBe(0);
    expect(again.calls().filter((call) => call.startsWith('dpkg --add-architecture'))).toEqual([]);
  });

  it('installs nothing and asks apt nothing when every package is there', () => {
    const done = machine({ installed: 'all', arm64: true });
    dirs.push(done.dir);
    const run = done.run();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^e2e-deps: all \d+ packages are installed\n$/);
    expect(done.calls()).toEqual([]);
  });
});
