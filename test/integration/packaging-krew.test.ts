// The krew plugin manifest npm run package writes (scripts/packaging/krew-manifest.mjs), made here
// from stand-in executables and checked against the rules krew itself applies to a manifest
// (its validation package and installer): apiVersion and kind, a safe plugin name, a one-line
// short description, a v-prefixed semantic version, and per platform an os/arch selector, a uri,
// a lower-case hex sha256 of the archive, and a bin that the file operations put in place.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { krewManifest, writeKrewArchive, type KrewArchive } from '../../scripts/packaging/krew-manifest.mjs';
import { releaseExecutables, releaseInfo, type ReleaseInfo } from '../../scripts/packaging/release-files.mjs';
import { assertKrewRules, type KrewManifest } from '../support/krew-rules.js';

const RELEASE = 'https://github.com/example/vconsole/releases/download/v1.2.3-rc.1';
/** Stand-ins for dist/bin's executables: small files with the release's names. */
const NAMES = ['vconsole-linux-x64', 'vconsole-linux-arm64', 'vconsole-win-x64.exe', 'vconsole-macos-x64'];

let dir: string;
let info: ReleaseInfo;
let archives: KrewArchive[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vconsole-krew-'));
  const sums = NAMES.map((name) => {
    const bytes = Buffer.from(`stand-in for ${name}\n`);
    writeFileSync(path.join(dir, name), bytes, { mode: 0o755 });
    return `${createHash('sha256').update(bytes).digest('hex')}  ${name}\n`;
  });
  const found = releaseInfo({ name: 'vconsole', version: '1.2.3-rc.1' }, { VCONSOLE_RELEASE_URL: RELEASE });
  if (found.missing) throw new Error(found.missing);
  info = found as ReleaseInfo;
  archives = [];
  for (const executable of releaseExecutables(sums.join(''))) archives.push(await writeKrewArchive(dir, executable));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('krew plugin manifest', () => {
  it("follows krew's manifest rules, one platform per executable", () => {
    const manifest = parse(krewManifest(info, archives)) as KrewManifest;
    assertKrewRules(manifest, 'vconsole');
    expect(manifest.spec.version).toBe('v1.2.3-rc.1');
    expect(manifest.spec.homepage).toBe('https://github.com/example/vconsole');
    expect(manifest.spec.platforms.map((platform) => platform.selector.matchLabels)).toEqual([
      { os: 'linux', arch: 'amd64' },
      { os: 'linux', arch: 'arm64' },
      { os: 'windows', arch: 'amd64' },
      { os: 'darwin', arch: 'amd64' },
    ]);
  });

  it("points each platform at its archive's address and SHA-256", () => {
    const manifest = parse(krewManifest(info, archives)) as KrewManifest;
    for (const platform of manifest.spec.platforms) {
      const archive = path.basename(new URL(platform.uri).pathname);
      expect(platform.uri).toBe(`${RELEASE}/${archive}`);
      expect(platform.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(path.join(dir, archive)))
          .digest('hex'),
      );
    }
  });

  it('installs kubectl-vconsole[.exe] from each archive, as krew unpacks and moves it', () => {
    const manifest = parse(krewManifest(info, archives)) as KrewManifest;
    for (const [index, platform] of manifest.spec.platforms.entries()) {
      const unpacked = path.join(dir, `unpacked-${index}`);
      mkdirSync(unpacked);
      const archive = path.join(dir, path.basename(new URL(platform.uri).pathname));
      // krew's tar reader takes regular files and directories only, and names come out as written.
      const listing = execFileSync('tar', ['-tvzf', archive], { encoding: 'utf8' }).trim().split('\n');
      for (const line of listing) expect(line, 'a regular file, mode 0755').toMatch(/^-rwxr-xr-x /);
      execFileSync('tar', ['-xzf', archive, '-C', unpacked]);
      const installed = path.join(dir, `installed-${index}`);
      mkdirSync(installed);
      for (const operation of platform.files ?? [{ from: '*', to: '.' }]) {
        const moved = readdirSync(unpacked).filter((name) => operation.from === '*' || name === operation.from);
        expect(moved, `files.from ${operation.from} matches a file of the archive`).not.toEqual([]);
        for (const name of moved) writeFileSync(path.join(installed, operation.to, name), readFileSync(path.join(unpacked, name)));
      }
      const bin = path.join(installed, platform.bin);
      expect(statSync(bin).isFile()).toBe(true);
      const source = archives[index].file;
      expect(readFileSync(bin)).toEqual(readFileSync(path.join(dir, source)));
      expect(platform.bin).toBe(platform.selector.matchLabels.os === 'windows' ? 'kubectl-vconsole.exe' : 'kubectl-vconsole');
    }
  });

  it('makes the same archive bytes from the same executable', async () => {
    const again = await writeKrewArchive(dir, archives[0]);
    expect(again.archiveSha256).toBe(archives[0].archiveSha256);
  });

  it('refuses a download address that is not https, and names what is missing', () => {
    expect(() => releaseInfo({ name: 'vconsole', version: '1.0.0' }, { VCONSOLE_RELEASE_URL: 'http://example.com/v1' })).toThrow(
      /VCONSOLE_RELEASE_URL "http:\/\/example.com\/v1" is not an https:\/\/ address/,
    );
    expect(releaseInfo({ name: 'vconsole', version: '1.0.0' }, {})).toEqual({
      missing: expect.stringMatching(/no download address .*VCONSOLE_RELEASE_URL/),
    });
    expect(releaseInfo({ name: 'vconsole', version: '1.0.0', repository: { url: 'git+https://github.com/o/r.git' } }, {})).toMatchObject({
      baseUrl: 'https://github.com/o/r/releases/download/v1.0.0',
      homepage: 'https://github.com/o/r',
    });
  });
});
