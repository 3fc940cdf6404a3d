// Where clouds.yaml and secure.yaml are looked for, in openstacksdk's order, and which of them
// vconsole does not take on trust: one found only because it is in the current directory.
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../../errors.js';
import { isRecord as isDict } from '../../config/records.js';

export type Dict = Record<string, unknown>;

export interface ConfigSources {
  env: Readonly<Record<string, string | undefined>>;
  /** File contents, or undefined when the file does not exist. */
  readFile(file: string): string | undefined;
  homeDir: string;
  cwd: string;
}

type ConfigKind = 'clouds' | 'secure';

/** A config file read, and whether it is the user's own. */
export interface FoundFile {
  file: string;
  data: Dict;
  /**
   * Found only because it sits in the current directory (not named by $OS_CLIENT_CONFIG_FILE
   * or $OS_CLIENT_SECURE_FILE, not in a directory of the user's or the system's config):
   * someone else may have put it there (a cloned repository, a shared directory).
   */
  untrusted: boolean;
}

interface Candidate {
  file: string;
  untrusted: boolean;
}

const SUFFIXES = ['.yaml', '.yml', '.json'];

/**
 * Directories searched, first match wins (openstacksdk's order: the current directory, the
 * user's config directory, /etc/openstack). `currentDirectory: false` leaves the current
 * directory out unless it is one of the others.
 */
function configDirectories(sources: ConfigSources, currentDirectory: boolean): { dir: string; untrusted: boolean }[] {
  const own = [sources.env.XDG_CONFIG_HOME ? path.join(sources.env.XDG_CONFIG_HOME, 'openstack') : undefined]
    .concat([path.join(sources.homeDir, '.config', 'openstack'), '/etc/openstack'])
    .filter((dir): dir is string => !!dir);
  const cwdIsOwn = own.some((dir) => path.resolve(dir) === path.resolve(sources.cwd));
  const dirs = [...(currentDirectory || cwdIsOwn ? [{ dir: sources.cwd, untrusted: !cwdIsOwn }] : [])];
  for (const dir of own) if (!dirs.some((d) => path.resolve(d.dir) === path.resolve(dir))) dirs.push({ dir, untrusted: false });
  return dirs;
}

function candidates(sources: ConfigSources, kind: ConfigKind, currentDirectory: boolean): Candidate[] {
  const override = sources.env[kind === 'clouds' ? 'OS_CLIENT_CONFIG_FILE' : 'OS_CLIENT_SECURE_FILE'];
  const files = configDirectories(sources, currentDirectory).flatMap(({ dir, untrusted }) =>
    SUFFIXES.map((s) => ({ file: path.join(dir, `${kind}${s}`), untrusted })),
  );
  // Named by the user: trusted wherever it is, the current directory included.
  return override ? [{ file: override, untrusted: false }, ...files] : files;
}

/** Candidate files for `clouds` or `secure`, the $OS_CLIENT_*_FILE override first. */
export function configFiles(sources: ConfigSources, kind: ConfigKind, currentDirectory = true): string[] {
  return candidates(sources, kind, currentDirectory).map((c) => c.file);
}

/** The first candidate that exists, parsed; `currentDirectory: false` does not even read one found only there. */
export function readFirst(sources: ConfigSources, kind: ConfigKind, currentDirectory: boolean): FoundFile | undefined {
  for (const { file, untrusted } of candidates(sources, kind, currentDirectory)) {
    const text = sources.readFile(file);
    if (text === undefined) continue;
    let data: unknown;
    try {
      data = parseYaml(text);
    } catch (err) {
      throw new UsageError(`cannot parse ${file}: ${(err as Error).message.split('\n')[0]}`, 'fix the YAML syntax');
    }
    if (!isDict(data)) throw new UsageError(`${file} is empty or not a mapping`, 'it must hold a "clouds:" mapping');
    return { file, data, untrusted };
  }
  return undefined;
}

/** The `clouds:` mapping of a file read, or none. */
export function cloudsOf(found: { data: Dict } | undefined): Dict {
  const clouds = found?.data.clouds;
  return isDict(clouds) ? clouds : {};
}
