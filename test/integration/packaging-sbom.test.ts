// The CycloneDX SBOM npm run package writes (scripts/packaging/sbom.mjs), made here from a real
// esbuild metafile of a small bundle of the project's own dependencies: every package whose files
// went into the bundle is a component with package-lock.json's version, purl and license, Node.js
// is the platform, and the document has the fields CycloneDX 1.5 requires.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledPackages, cycloneDxBom, lockfileKeyOf, npmPurl, type Lockfile } from '../../scripts/packaging/sbom.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string };

interface Component {
  type: string;
  'bom-ref': string;
  group?: string;
  name: string;
  version: string;
  purl: string;
  licenses?: { expression?: string; license?: { id?: string; name?: string } }[];
  hashes?: { alg: string; content: string }[];
}

let metafile: Metafile;
beforeAll(async () => {
  const result = await build({
    stdin: { contents: "import 'yaml'; import 'ws'; import '@peculiar/x509';", resolveDir: ROOT },
    bundle: true,
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['bufferutil', 'utf-8-validate'],
  });
  metafile = result.metafile;
});

/** The bundle's packages, from its input files: package-lock.json keys. */
function bundledKeys(): string[] {
  return [...new Set(Object.keys(metafile.inputs).flatMap((file) => lockfileKeyOf(file) ?? []))];
}

describe('CycloneDX SBOM of the bundled packages', () => {
  it("lists every bundled package once, with the lockfile's version, purl and license", () => {
    const bom = cycloneDxBom({ pkg, packages: bundledPackages([metafile], [], lock), nodeVersion: '22.23.3' }) as {
      components: Component[];
    };
    const keys = bundledKeys();
    expect(keys).toEqual(expect.arrayContaining(['node_modules/yaml', 'node_modules/ws', 'node_modules/@peculiar/x509']));
    for (const key of keys) {
      const entry = lock.packages![key];
      const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const component = bom.components.find((found) => found.purl === npmPurl(name, entry.version!));
      expect(component, `${name}@${entry.version}`).toBeDefined();
      expect(component!.version).toBe(entry.version);
      expect(component!.type).toBe('library');
      if (entry.license) expect(component!.licenses).toEqual([{ expression: entry.license }]);
    }
    const scoped = bom.components.find((found) => found.purl.startsWith('pkg:npm/%40peculiar/x509@'))!;
    expect(scoped).toMatchObject({ group: '@peculiar', name: 'x509' });
    expect(bom.components.filter((component) => component.type === 'library')).toHaveLength(
      new Set(keys.map((key) => `${key.replace(/^.*node_modules\//, '')}@${lock.packages![key].version}`)).size,
    );
  });

  it('has the fields CycloneDX 1.5 requires, unique refs, and Node.js as the platform', () => {
    const bom = cycloneDxBom({ pkg, packages: bundledPackages([metafile], [], lock), nodeVersion: '22.23.3' }) as {
      bomFormat: string;
      specVersion: string;
      version: number;
      metadata: { component: Component };
      components: Component[];
      dependencies: { ref: string; dependsOn: string[] }[];
    };
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(bom.specVersion).toBe('1.5');
    expect(Number.isInteger(bom.version) && bom.version >= 1).toBe(true);
    expect(bom.metadata.component).toMatchObject({
      type: 'application',
      name: 'vconsole',
      version: pkg.version,
      purl: `pkg:npm/vconsole@${pkg.version}`,
    });
    const types = [
      'application',
      'framework',
      'library',
      'container',
      'platform',
      'operating-system',
      'device',
      'device-driver',
      'firmware',
      'file',
    ];
    const refs = bom.components.map((component) => component['bom-ref']);
    expect(new Set(refs).size).toBe(refs.length);
    for (const component of bom.components) {
      expect(types).toContain(component.type);
      expect(component.name).toBeTruthy();
      expect(component.purl).toMatch(/^pkg:[a-z]+\/[^@\s]+@[^\s]+$/);
      for (const license of component.licenses ?? [])
        expect(license.expression ?? license.license?.id ?? license.license?.name).toBeTruthy();
      for (const hash of component.hashes ?? [])
        expect(hash).toMatchObject({ alg: 'SHA-512', content: expect.stringMatching(/^[a-f0-9]{128}$/) });
    }
    expect(bom.components).toContainEqual(expect.objectContaining({ type: 'platform', name: 'node', version: '22.23.3' }));
    expect(bom.dependencies).toEqual([{ ref: bom.metadata.component['bom-ref'], dependsOn: refs }]);
  });

  it('finds packages through a symlinked node_modules and nested copies, and refuses a file the lockfile does not know', () => {
    expect(lockfileKeyOf('../../main/node_modules/ws/lib/websocket.js')).toBe('node_modules/ws');
    expect(lockfileKeyOf('node_modules/a/node_modules/@s/b/x.js')).toBe('node_modules/a/node_modules/@s/b');
    expect(lockfileKeyOf('/abs/node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz')).toBe(
      'node_modules/@tesseract.js-data/eng',
    );
    expect(lockfileKeyOf('src/cli.ts')).toBeUndefined();
    expect(() => bundledPackages([{ inputs: { 'node_modules/not-locked/index.js': {} } }], [], lock)).toThrow(
      /node_modules\/not-locked\/index.js is bundled, but package-lock.json has no version for node_modules\/not-locked/,
    );
  });
});
