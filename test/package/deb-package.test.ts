// The .deb `npm run package` writes beside each linux executable (scripts/packaging/deb-package.mjs):
// its control file and root-owned contents, then a real `dpkg -i` into a throwaway root
// (`dpkg --root`, its own dpkg database, so the machine's /usr stays untouched) after which the
// installed vconsole and kubectl-vconsole run, `man -w` finds vconsole(1) and the completions are
// in their places; `dpkg -r` takes it all away again. Skips without the package output unless
// VCONSOLE_SEA=required (CI).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const DEB = path.join(ROOT, 'dist', 'bin', `vconsole_${VERSION}_amd64.deb`);
const required = process.env.VCONSOLE_SEA === 'required';
const present = existsSync(DEB) && process.platform === 'linux' && process.arch === 'x64';
if (!present && !required) console.warn(`deb-package: skipping: ${path.relative(ROOT, DEB)} is absent (run \`npm run package\`)`);

const INSTALLED = [
  'usr/bin/vconsole',
  'usr/share/man/man1/vconsole.1.gz',
  'usr/share/bash-completion/completions/vconsole',
  'usr/share/zsh/vendor-completions/_vconsole',
  'usr/share/fish/vendor_completions.d/vconsole.fish',
];

/** A root with an empty dpkg database, for `dpkg --root`. */
function emptyRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'vconsole-dpkg-'));
  for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates', 'var/lib/dpkg/triggers'])
    mkdirSync(path.join(root, dir), { recursive: true });
  for (const file of ['var/lib/dpkg/status', 'var/lib/dpkg/available']) writeFileSync(path.join(root, file), '');
  return root;
}
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!present && !required)('the .deb', () => {
  it('declares the package with its version, architecture, libc dependency and root-owned files', () => {
    const field = (name: string) => execFileSync('dpkg-deb', ['--field', DEB, name], { encoding: 'utf8' }).trim();
    expect(field('Package')).toBe('vconsole');
    expect(field('Version')).toBe(VERSION);
    expect(field('Architecture')).toBe('amd64');
    expect(field('Depends')).toMatch(/^libc6 \(>= 2\.\d+\)/);
    expect(field('Maintainer')).toMatch(/<.+@.+>/);
    const contents = execFileSync('dpkg-deb', ['--contents', DEB], { encoding: 'utf8' }).trim().split('\n');
    for (const line of contents) expect(line).toMatch(/^\S+ root\/root /);
    for (const file of INSTALLED) expect(contents.some((line) => line.endsWith(` ./${file}`))).toBe(true);
    expect(contents.find((line) => line.includes('./usr/bin/kubectl-vconsole'))).toMatch(/^l.* -> vconsole$/);
    expect(execFileSync('dpkg-deb', ['--info', DEB, 'md5sums'], { encoding: 'utf8' })).toContain('  usr/bin/vconsole\n');
  });

  it('installs with dpkg -i: vconsole and kubectl-vconsole run, man finds vconsole(1); dpkg -r removes them', () => {
    const root = emptyRoot();
    roots.push(root);
    const dpkg = (...args: string[]) =>
      execFileSync('dpkg', [`--root=${root}`, '--force-depends', '--force-not-root', ...args], { encoding: 'utf8' });
    dpkg('-i', DEB);
    for (const file of INSTALLED) expect(existsSync(path.join(root, file)), file).toBe(true);
    expect(execFileSync(path.join(root, 'usr/bin/vconsole'), ['--version'], { encoding: 'utf8' }).trim()).toBe(VERSION);
    expect(execFileSync(path.join(root, 'usr/bin/kubectl-vconsole'), ['--version'], { encoding: 'utf8' }).trim()).toBe(VERSION);
    const man = spawnSync('man', ['-w', 'vconsole'], {
      encoding: 'utf8',
      env: { ...process.env, MANPATH: path.join(root, 'usr/share/man') },
    });
    expect(man.stdout.trim()).toBe(path.join(root, 'usr/share/man/man1/vconsole.1.gz'));
    const page = spawnSync('man', ['--warnings', '-l', path.join(root, 'usr/share/man/man1/vconsole.1.gz')], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat' },
    });
    expect(page.stderr).toBe('');
    expect(page.stdout).toContain('EXIT STATUS');
    expect(dpkg('--status', 'vconsole')).toContain('Status: install ok installed');
    dpkg('-r', 'vconsole');
    for (const file of [...INSTALLED, 'usr/bin/kubectl-vconsole']) expect(existsSync(path.join(root, file)), file).toBe(false);
  });
});
