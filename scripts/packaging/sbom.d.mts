import type { PackageJson } from './release-files.mjs';
export declare const SBOM_FILE: string;
export declare const SBOM_SPEC_VERSION: string;
export interface BundledPackage {
  name: string;
  version: string;
  license?: string;
  integrity?: string;
}
export interface Lockfile {
  packages?: Record<string, { name?: string; version?: string; license?: string; integrity?: string }>;
}
export declare function lockfileKeyOf(file: string): string | undefined;
export declare function npmPurl(name: string, version: string): string;
export declare function bundledPackages(
  metafiles: { inputs: Record<string, unknown> }[],
  assetFiles: string[],
  lock: Lockfile,
): BundledPackage[];
export declare function cycloneDxBom(input: { pkg: PackageJson; packages: BundledPackage[]; nodeVersion: string }): Record<string, unknown>;
