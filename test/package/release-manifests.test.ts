// What `npm run package` writes beside the executables (scripts/packaging/release-manifests.mjs):
// the SBOM always; the krew manifest with its archives, the Homebrew formula and the Scoop manifest
// when the release's address is known ($VCONSOLE_RELEASE_URL or package.json's repository).
// Each points at the files it names by their real SHA-256. Skips without the package output
// unless VCONSOLE_SEA=required (CI); the manifests' checks skip when they were not written.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertKrewRules, type KrewManifest } from '../support/krew-rules.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'dist/bin');
const SBOM = path.join(BIN, 'vconsole.cdx.json');
const required = process.env.VCONSOLE_SEA === 'required';
const present = existsSync(SBOM);
if (!present && !required) console.warn('release-manifests: skipping: dist/bin/vconsole.cdx.json is absent (run `npm run package`)');

const sums = () =>
  new Map(
    readFileSync(path.join(BIN, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(66), line.slice(0, 64)] as const),
  );
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(!present && !required)('release files beside the executables', () => {
  it("SBOM: every component at package-lock.json's version, the CLI's and OCR's packages, and the embedded Node.js", () => {
    const bom = JSON.parse(readFileSync(SBOM, 'utf8')) as {
      specVersion: string;
      components: { type: string; group?: string; name: string; version: string }[];
    };
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    const lockedVersions = new Set(
      Object.entries(lock.packages).map(([key, entry]) => `${key.replace(/^.*node_modules\//, '')}@${entry.version}`),
    );
    expect(bom.specVersion).toBe('1.5');
    const libraries = bom.components.filter((component) => component.type === 'library');
    for (const library of libraries)
      expect(lockedVersions).toContain(`${library.group ? `${library.group}/` : ''}${library.name}@${library.version}`);
    const names = libraries.map((library) => (library.group ? `${library.group}/${library.name}` : library.name));
    for (const name of [
      'commander',
      'ink',
      'react',
      'ws',
      'yaml',
      '@kubernetes/client-node',
      'tesseract.js-core',
      '@tesseract.js-data/eng',
    ])
      expect(names).toContain(name);
    const NODE_VERSION = /export const NODE_VERSION = '([\d.]+)'/.exec(readFileSync(path.join(ROOT, 'scripts/package.mjs'), 'utf8'))![1];
    expect(bom.components).toContainEqual(expect.objectContaining({ type: 'platform', name: 'node', version: NODE_VERSION }));
  });

  const krew = path.join(BIN, 'vconsole.yaml');
  it.skipIf(!existsSync(krew))('krew: the rules krew applies, and each archive holds its executable as kubectl-vconsole', () => {
    const manifest = parse(readFileSync(krew, 'utf8')) as KrewManifest;
    assertKrewRules(manifest, 'vconsole');
    expect(manifest.spec.platforms).toHaveLength(sums().size);
    for (const platform of manifest.spec.platforms) {
      const archive = path.join(BIN, path.basename(new URL(platform.uri).pathname));
      expect(sha256(readFileSync(archive))).toBe(platform.sha256);
      const inside = execFileSync('tar', ['-xzOf', archive, platform.bin], { maxBuffer: 512 * 1024 * 1024 });
      expect([...sums().values()]).toContain(sha256(inside));
    }
  });

  const formula = path.join(BIN, 'vconsole.rb');
  it.skipIf(!existsSync(formula))("Homebrew: each url's file has its sha256 in SHA256SUMS", () => {
    const pairs = [...readFileSync(formula, 'utf8').matchAll(/url "([^"]+)"\n\s+sha256 "([0-9a-f]{64})"/g)];
    expect(pairs.length).toBe([...sums().keys()].filter((name) => !name.endsWith('.exe')).length);
    for (const [, url, hash] of pairs) expect(sums().get(path.basename(new URL(url).pathname))).toBe(hash);
  });

  const scoop = path.join(BIN, 'vconsole.json');
  it.skipIf(!existsSync(scoop))('Scoop: the Windows executable with its SHA256SUMS hash', () => {
    const manifest = JSON.parse(readFileSync(scoop, 'utf8')) as { architecture: Record<string, { url: string; hash: string }> };
    for (const { url, hash } of Object.values(manifest.architecture)) expect(sums().get(path.basename(new URL(url).pathname))).toBe(hash);
  });
});
