// The .rpm `npm run package` writes beside each linux executable (scripts/packaging/rpm-package.mjs):
// its header (name, version, architecture, what it requires) and root-owned contents, then a real
// `rpm -i` into a throwaway root (`rpm --root`, its own database, so the machine is untouched),
// after which the installed vconsole and kubectl-vconsole run, still the executable that was built
// (nothing stripped) and the completions are in Fedora's places; `rpm -e` takes it all away again.
// Skips without the package output unless VCONSOLE_SEA=required (CI).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const RPM = path.join(ROOT, 'dist', 'bin', `vconsole-${VERSION}-1.x86_64.rpm`);
const EXECUTABLE = path.join(ROOT, 'dist', 'bin', 'vconsole-linux-x64');
const required = process.env.VCONSOLE_SEA === 'required';
const present = existsSync(RPM) && process.platform === 'linux' && process.arch === 'x64';
if (!present && !required) console.warn(`rpm-package: skipping: ${path.relative(ROOT, RPM)} is absent (run \`npm run package\`)`);

const INSTALLED = [
  'usr/bin/vconsole',
  'usr/share/man/man1/vconsole.1.gz',
  'usr/share/bash-completion/completions/vconsole',
  'usr/share/zsh/site-functions/_vconsole',
  'usr/share/fish/vendor_completions.d/vconsole.fish',
];

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!present && !required)('the .rpm', () => {
  it('declares the package with its version, architecture, libc requirement and root-owned files', () => {
    const query = (format: string) => execFileSync('rpm', ['-qp', '--queryformat', format, RPM], { encoding: 'utf8' });
    expect(query('%{NAME} %{VERSION} %{ARCH}')).toBe(`vconsole ${VERSION} x86_64`);
    expect(execFileSync('rpm', ['-qp', '--requires', RPM], { encoding: 'utf8' })).toMatch(/^glibc >= 2\.\d+$/m);
    // --dump: path size mtime digest mode owner group isconfig isdoc rdev symlink
    const dump = execFileSync('rpm', ['-qp', '--dump', RPM], { encoding: 'utf8' }).trim().split('\n');
    for (const line of dump) expect(line.split(' ').slice(5, 7), line).toEqual(['root', 'root']);
    for (const file of INSTALLED)
      expect(
        dump.some((line) => line.startsWith(`/${file} `)),
        file,
      ).toBe(true);
    expect(dump.find((line) => line.startsWith('/usr/bin/kubectl-vconsole '))).toMatch(/ 0120777 .* vconsole$/);
  });

  it('installs with rpm -i: vconsole and kubectl-vconsole run as built; rpm -e removes them', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vconsole-rpm-root-'));
    roots.push(root);
    const rpm = (...args: string[]) =>
      execFileSync('rpm', [`--root=${root}`, '--dbpath=/var/lib/rpm', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    rpm('--initdb');
    rpm('-i', '--nodeps', RPM);
    for (const file of INSTALLED) expect(existsSync(path.join(root, file)), file).toBe(true);
    // Stripping a single executable cuts the program off it: the installed file is the built one.
    if (existsSync(EXECUTABLE)) expect(sha256(path.join(root, 'usr/bin/vconsole'))).toBe(sha256(EXECUTABLE));
    expect(execFileSync(path.join(root, 'usr/bin/vconsole'), ['--version'], { encoding: 'utf8' }).trim()).toBe(VERSION);
    expect(execFileSync(path.join(root, 'usr/bin/kubectl-vconsole'), ['--version'], { encoding: 'utf8' }).trim()).toBe(VERSION);
    expect(rpm('-q', 'vconsole').trim()).toBe(`vconsole-${VERSION}-1.x86_64`);
    rpm('-e', 'vconsole');
    for (const file of [...INSTALLED, 'usr/bin/kubectl-vconsole']) expect(existsSync(path.join(root, file)), file).toBe(false);
  });
});
