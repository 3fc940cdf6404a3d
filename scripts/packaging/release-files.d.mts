export declare const RELEASE_URL_ENV: string;
export declare const SHORT_DESCRIPTION: string;
export interface ReleaseExecutable {
  file: string;
  sha256: string;
  os: 'linux' | 'windows' | 'darwin';
  arch: 'amd64' | 'arm64';
}
export interface ReleaseInfo {
  version: string;
  license?: string;
  baseUrl: string;
  homepage: string;
  missing?: undefined;
}
export interface PackageJson {
  name: string;
  version: string;
  description?: string;
  license?: string;
  homepage?: string;
  repository?: string | { url?: string };
}
export declare function releaseExecutables(checksumsText: string): ReleaseExecutable[];
export declare function githubRepository(pkg: PackageJson): string | undefined;
export declare function releaseInfo(pkg: PackageJson, env?: NodeJS.ProcessEnv): ReleaseInfo | { missing: string };
export declare function releaseUrl(info: ReleaseInfo, file: string): string;
