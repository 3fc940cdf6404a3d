// The Homebrew formula and Scoop manifest npm run package writes (scripts/packaging/), made here
// from a stand-in SHA256SUMS: each download address and checksum is the release file's line, in
// the structure Homebrew's formula DSL and Scoop's manifest schema (required version, homepage,
// license; hashes as hex) take. `ruby -c` checks the formula's syntax where ruby is installed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { homebrewFormula } from '../../scripts/packaging/homebrew-formula.mjs';
import { releaseExecutables, releaseInfo, type ReleaseInfo } from '../../scripts/packaging/release-files.mjs';
import { scoopManifest } from '../../scripts/packaging/scoop-manifest.mjs';
import { skipWithoutPrograms } from '../support/programs.js';

const RELEASE = 'https://github.com/example/vconsole/releases/download/v2.0.1';
const SUMS = ['vconsole-linux-arm64', 'vconsole-linux-x64', 'vconsole-macos-x64', 'vconsole-win-x64.exe']
  .map((name, index) => `${String(index + 1).repeat(64)}  ${name}\n`)
  .join('');
const executables = releaseExecutables(SUMS);
const info = releaseInfo({ name: 'vconsole', version: '2.0.1', license: 'Apache-2.0' }, { VCONSOLE_RELEASE_URL: RELEASE }) as ReleaseInfo;
const sumOf = (file: string) =>
  SUMS.split('\n')
    .find((line) => line.endsWith(`  ${file}`))!
    .slice(0, 64);

/** Each on_<os> block's on_<arch> blocks with their url and sha256, read from the formula's text. */
function formulaDownloads(formula: string): { os: string; arch: string; url: string; sha256: string }[] {
  const downloads = [];
  for (const osBlock of formula.matchAll(/^ {2}(on_macos|on_linux) do\n([\s\S]*?)^ {2}end$/gm)) {
    for (const archBlock of osBlock[2].matchAll(/^ {4}(on_intel|on_arm) do\n {6}url "([^"]+)"\n {6}sha256 "([0-9a-f]{64})"\n {4}end$/gm)) {
      downloads.push({ os: osBlock[1], arch: archBlock[1], url: archBlock[2], sha256: archBlock[3] });
    }
  }
  return downloads;
}

describe('Homebrew formula', () => {
  const formula = homebrewFormula(info, executables)!;

  it("gives each macOS and Linux executable's address and SHA256SUMS line in its on_os/on_arch block", () => {
    expect(formulaDownloads(formula)).toEqual([
      { os: 'on_macos', arch: 'on_intel', url: `${RELEASE}/vconsole-macos-x64`, sha256: sumOf('vconsole-macos-x64') },
      { os: 'on_linux', arch: 'on_arm', url: `${RELEASE}/vconsole-linux-arm64`, sha256: sumOf('vconsole-linux-arm64') },
      { os: 'on_linux', arch: 'on_intel', url: `${RELEASE}/vconsole-linux-x64`, sha256: sumOf('vconsole-linux-x64') },
    ]);
    expect(formula.match(/\burl "/g)).toHaveLength(3);
  });

  it('installs the download as vconsole and tests it with --version', () => {
    expect(formula).toMatch(/^class Vconsole < Formula$/m);
    expect(formula).toContain('  version "2.0.1"\n');
    expect(formula).toContain('  license "Apache-2.0"\n');
    expect(formula).toMatch(/def install\n\s+# .*\n\s+bin\.install Dir\["vconsole-\*"\]\.first => "vconsole"\n\s+end/);
    expect(formula).toMatch(/test do\n\s+assert_equal version\.to_s, shell_output\("#\{bin\}\/vconsole --version"\)\.strip\n\s+end/);
    expect(formula).not.toContain('depends_on :linux');
  });

  it('without a macOS executable, says it is for Linux only; without any, is not written', () => {
    const linuxOnly = homebrewFormula(
      info,
      executables.filter((entry) => entry.os !== 'darwin'),
    )!;
    expect(formulaDownloads(linuxOnly).map((download) => download.os)).toEqual(['on_linux', 'on_linux']);
    expect(linuxOnly).toContain('  depends_on :linux\n');
    expect(
      homebrewFormula(
        info,
        executables.filter((entry) => entry.os === 'windows'),
      ),
    ).toBeUndefined();
  });

  const skip = skipWithoutPrograms(['ruby']);
  it.skipIf(skip)(`is Ruby that \`ruby -c\` accepts${skip ? ` (${skip})` : ''}`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-formula-'));
    try {
      writeFileSync(path.join(dir, 'vconsole.rb'), formula);
      const check = spawnSync('ruby', ['-c', 'vconsole.rb'], { cwd: dir, encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.stdout.trim()).toBe('Syntax OK');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Scoop manifest', () => {
  const manifest = scoopManifest(info, executables)! as {
    version: string;
    homepage: string;
    license: string;
    architecture: Record<string, { url: string; hash: string; bin: string[][] }>;
    autoupdate: { architecture: Record<string, { url: string }>; hash: { url: string } };
  };

  it("has the schema's required fields and names the Windows executable with its SHA256SUMS line", () => {
    // Scoop's schema: version, homepage and license are required; no other top-level keys than its own.
    expect(manifest).toMatchObject({ version: '2.0.1', homepage: 'https://github.com/example/vconsole', license: 'Apache-2.0' });
    expect(manifest.version).toMatch(/^[\w.\-+]+$/);
    const schemaKeys = ['version', 'description', 'homepage', 'license', 'architecture', 'checkver', 'autoupdate'];
    for (const key of Object.keys(manifest)) expect(schemaKeys).toContain(key);
    expect(manifest.architecture).toEqual({
      '64bit': { url: `${RELEASE}/vconsole-win-x64.exe`, hash: sumOf('vconsole-win-x64.exe'), bin: [['vconsole-win-x64.exe', 'vconsole']] },
    });
    expect(manifest.architecture['64bit'].hash).toMatch(/^[a-fA-F0-9]{64}$/);
  });

  it("follows new GitHub releases: the address with $version, the hash from the release's SHA256SUMS", () => {
    expect(manifest.autoupdate.architecture['64bit'].url).toBe(
      'https://github.com/example/vconsole/releases/download/v$version/vconsole-win-x64.exe',
    );
    expect(manifest.autoupdate.hash).toEqual({ url: '$baseurl/SHA256SUMS' });
    expect(
      scoopManifest(
        info,
        executables.filter((entry) => entry.os !== 'windows'),
      ),
    ).toBeUndefined();
  });
});
