// `npm run package`'s release files beside the executables in dist/bin: the SBOM, and, when the
// release's download address is known (release-files.mjs), the krew manifest with its archives,
// the Homebrew formula and the Scoop manifest, each pointing at the files by SHA256SUMS.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homebrewFormula, HOMEBREW_FORMULA_FILE } from './homebrew-formula.mjs';
import { KREW_MANIFEST_FILE, krewManifest, writeKrewArchive } from './krew-manifest.mjs';
import { releaseExecutables, releaseInfo } from './release-files.mjs';
import { bundledPackages, cycloneDxBom, SBOM_FILE } from './sbom.mjs';
import { SCOOP_MANIFEST_FILE, scoopManifest } from './scoop-manifest.mjs';

/**
 * `metafiles`: esbuild's, of every bundle in the executables; `assetFiles`: the other files
 * embedded as assets; `lockPath`: package-lock.json. Writes into `binDir`, whose SHA256SUMS
 * must be written already.
 */
export async function writeReleaseManifests({ binDir, pkg, lockPath, metafiles, assetFiles, nodeVersion, env = process.env, log }) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const bom = cycloneDxBom({ pkg, packages: bundledPackages(metafiles, assetFiles, lock), nodeVersion });
  writeFileSync(join(binDir, SBOM_FILE), `${JSON.stringify(bom, null, 2)}\n`);
  log(`wrote ${SBOM_FILE} (${bom.components.length} components)`);

  const info = releaseInfo(pkg, env);
  if (info.missing) {
    log(`no krew, Homebrew or Scoop manifest: ${info.missing}`);
    return;
  }
  const executables = releaseExecutables(readFileSync(join(binDir, 'SHA256SUMS'), 'utf8'));
  const archives = [];
  for (const executable of executables) archives.push(await writeKrewArchive(binDir, executable));
  writeFileSync(join(binDir, KREW_MANIFEST_FILE), krewManifest(info, archives));
  log(`wrote ${KREW_MANIFEST_FILE} and ${archives.map((entry) => entry.archive).join(', ')}`);
  const formula = homebrewFormula(info, executables);
  if (formula) writeFileSync(join(binDir, HOMEBREW_FORMULA_FILE), formula);
  const scoop = scoopManifest(info, executables);
  if (scoop) writeFileSync(join(binDir, SCOOP_MANIFEST_FILE), `${JSON.stringify(scoop, null, 2)}\n`);
  log(
    `wrote ${[formula && HOMEBREW_FORMULA_FILE, scoop && SCOOP_MANIFEST_FILE].filter(Boolean).join(' and ') || 'no Homebrew or Scoop manifest (no executable for them)'}`,
  );
}
