import type { ReleaseExecutable, ReleaseInfo } from './release-files.mjs';
export declare const HOMEBREW_FORMULA_FILE: string;
export declare function homebrewFormula(info: ReleaseInfo, executables: ReleaseExecutable[]): string | undefined;
