import type { ReleaseExecutable, ReleaseInfo } from './release-files.mjs';
export declare const KREW_API_VERSION: string;
export declare const PLUGIN_NAME: string;
export declare const KREW_MANIFEST_FILE: string;
export interface KrewArchive extends ReleaseExecutable {
  archive: string;
  archiveSha256: string;
}
export declare function pluginBinary(executable: Pick<ReleaseExecutable, 'os'>): string;
export declare function krewArchiveName(executable: Pick<ReleaseExecutable, 'file'>): string;
export declare function writeKrewArchive(dir: string, executable: ReleaseExecutable): Promise<KrewArchive>;
export declare function krewManifest(info: ReleaseInfo, archives: KrewArchive[]): string;
