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
import { PACKAGE_LIST, packageOf, parsePackageList } from '../support/programs.js';

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

  it('asks apt-get for exactly the packages of scripts/e2e-packages.txt, each the way its line says', () => {
    const fresh = machine({ installed: 'none', arm64: false });
    dirs.push(fresh.dir);
    const run = fresh.run();
    expect(run.status, run.stderr).toBe(0);
    const installs = fresh.calls().filter((call) => call.startsWith('apt-get install'));
    const asked = (flag: boolean) =>
      installs
        .filter((call) => call.includes('--no-install-recommends') === flag)
        .flatMap((call) =>
          call.split(' ').filter((word) => !word.startsWith('-') && !word.includes('::') && !['apt-get', 'install'].includes(word)),
        );
    const listed = parsePackageList(readFileSync(PACKAGE_LIST, 'utf8'));
    expect(asked(false)).toEqual(listed.filter((pkg) => pkg.how === 'recommends').map((pkg) => pkg.name));
    expect(asked(true)).toEqual(listed.filter((pkg) => pkg.how === 'bare').map((pkg) => pkg.name));
  });

  it('refuses a list line that says neither recommends nor bare, naming the package', () => {
    const fresh = machine({ installed: 'none', arm64: false });
    dirs.push(fresh.dir);
    const list = path.join(fresh.dir, 'packages.txt');
    writeFileSync(list, 'tmux recommends tmux\nzsh sometimes zsh\n');
    const run = spawnSync('bash', [SCRIPT], {
      env: { PATH: `${fresh.dir}:/usr/bin:/bin`, E2E_PACKAGES_FILE: list },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("package zsh: install as 'recommends', 'bare' or 'guest', not 'sometimes'");
  });
});

describe('the programs tests require', () => {
  it("come from a package the list installs, and a program it does not list is the test's error", () => {
    expect(packageOf('qemu-system-x86_64')).toBe('qemu-system-x86');
    expect(packageOf('vnccapture')).toBe('libnet-vnc-perl');
    expect(() => packageOf('no-such-viewer')).toThrow(
      /a test requires no-such-viewer, which no line of scripts\/e2e-packages.txt installs/,
    );
  });
});
