import type { ReleaseExecutable, ReleaseInfo } from './release-files.mjs';
export declare const SCOOP_MANIFEST_FILE: string;
export declare function scoopManifest(info: ReleaseInfo, executables: ReleaseExecutable[]): Record<string, unknown> | undefined;
