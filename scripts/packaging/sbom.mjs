// A CycloneDX 1.5 SBOM (vconsole.cdx.json) of what the single executable holds: the npm packages
// whose files esbuild bundled (its metafiles list every input file) or that ship as assets, at
// the versions package-lock.json pins, with their licenses; vconsole itself; and Node.js.

export const SBOM_FILE = 'vconsole.cdx.json';
export const SBOM_SPEC_VERSION = '1.5';

/** package-lock.json's key (node_modules/a/node_modules/@s/b) of the package holding `file`, if any. */
export function lockfileKeyOf(file) {
  const normalized = file.replace(/\\/g, '/');
  const at = normalized.indexOf('node_modules/');
  if (at < 0) return undefined;
  const prefix = /^(?:node_modules\/(?:@[^/]+\/)?[^/]+\/)+/.exec(normalized.slice(at));
  return prefix ? prefix[0].slice(0, -1) : undefined;
}

/** The npm name a lockfile key installs (the last node_modules/ segment, or the lock's own name for an alias). */
function packageName(key, entry) {
  return entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** `pkg:npm/%40scope/name@1.2.3`: the purl of an npm package (the scope's @ encoded). */
export function npmPurl(name, version) {
  return `pkg:npm/${name.replace(/^@/, '%40')}@${version}`;
}

/**
 * The packages the executable contains: every input file of `metafiles` (esbuild's) and every
 * path of `assetFiles`, mapped to its package in `lock` (package-lock.json, v2 or v3). A file
 * under node_modules that the lockfile does not know is an error: the SBOM would be incomplete.
 */
export function bundledPackages(metafiles, assetFiles, lock) {
  const files = [...metafiles.flatMap((metafile) => Object.keys(metafile.inputs)), ...assetFiles];
  const packages = new Map();
  for (const file of files) {
    const key = lockfileKeyOf(file);
    if (!key || packages.has(key)) continue;
    const entry = lock.packages?.[key];
    if (!entry?.version) throw new Error(`package: ${file} is bundled, but package-lock.json has no version for ${key}`);
    packages.set(key, { name: packageName(key, entry), version: entry.version, license: entry.license, integrity: entry.integrity });
  }
  return [...packages.values()];
}

/** An npm integrity (sha512-BASE64) as a CycloneDX hash, hex. */
function hashesOf(integrity) {
  const sha512 = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity ?? '');
  return sha512 ? [{ alg: 'SHA-512', content: Buffer.from(sha512[1], 'base64').toString('hex') }] : undefined;
}

function licensesOf(license) {
  return typeof license === 'string' && license !== '' ? [{ expression: license }] : undefined;
}

function libraryComponent({ name, version, license, integrity }) {
  const purl = npmPurl(name, version);
  const scope = /^(@[^/]+)\/(.+)$/.exec(name);
  return {
    type: 'library',
    'bom-ref': purl,
    ...(scope ? { group: scope[1], name: scope[2] } : { name }),
    version,
    purl,
    ...(licensesOf(license) ? { licenses: licensesOf(license) } : {}),
    ...(hashesOf(integrity) ? { hashes: hashesOf(integrity) } : {}),
  };
}

/**
 * The SBOM as an object: `pkg` is package.json, `packages` bundledPackages()'s answer,
 * `nodeVersion` the Node.js every executable embeds. No time stamp or random serial number:
 * the same inputs make the same file.
 */
export function cycloneDxBom({ pkg, packages, nodeVersion }) {
  const root = npmPurl(pkg.name, pkg.version);
  // Two copies at one version (nested node_modules) are one component.
  const byPurl = new Map(packages.filter((entry) => entry.name !== pkg.name).map((entry) => [npmPurl(entry.name, entry.version), entry]));
  const libraries = [...byPurl.values()].map(libraryComponent).sort((a, b) => a.purl.localeCompare(b.purl));
  const node = {
    type: 'platform',
    'bom-ref': `pkg:generic/node@${nodeVersion}`,
    name: 'node',
    version: nodeVersion,
    description: 'Node.js, the runtime the single executable embeds',
    purl: `pkg:generic/node@${nodeVersion}`,
    licenses: [{ expression: 'MIT' }],
  };
  return {
    bomFormat: 'CycloneDX',
    specVersion: SBOM_SPEC_VERSION,
    version: 1,
    metadata: {
      component: {
        type: 'application',
        'bom-ref': root,
        name: pkg.name,
        version: pkg.version,
        description: pkg.description,
        purl: root,
        ...(licensesOf(pkg.license) ? { licenses: licensesOf(pkg.license) } : {}),
      },
    },
    components: [node, ...libraries],
    dependencies: [{ ref: root, dependsOn: [node['bom-ref'], ...libraries.map((library) => library['bom-ref'])] }],
  };
}
