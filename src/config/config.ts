// The config file: defaults (the provider options' and command flags' keys come from their
// declarations), aliases and workspaces, read safely and refused in one line when wrong.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError, VconsoleError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { CONFIG_FILE_MAX_BYTES } from '../limits.js';
import { fileErrorCause } from '../files/safe-file.js';
import { isRecord } from './records.js';
import { PROVIDERS, bareNameProviderIds, oneOf } from '../targets/index.js';
import type { ConsoleProvider } from '../targets/types.js';
import { COMMAND_FLAGS } from '../flags/command-flags.js';
import type { ConfigKeysOf, FileKey } from '../targets/option-group.js';
import { PROVIDER_OPTIONS, type DeclaredDefaults } from '../targets/option-groups.js';
import { parseWorkspaces, type Workspace } from './workspaces.js';

/**
 * Defaults a config file may set; flags and environment variables win over them. The provider
 * options' keys (namespace, kubeconfig, context, cloud) and the command flags' (viewer, listen,
 * share, via) come with their declarations.
 */
type ConfigDefaults = DeclaredDefaults &
  ConfigKeysOf<typeof COMMAND_FLAGS> & {
    /** The provider of bare names: one whose `bareNames` is set (src/targets/index.ts). */
    provider?: string;
  };

export interface VconsoleConfig {
  /** The file it came from, or undefined when none exists. */
  file?: string;
  defaults: ConfigDefaults;
  /** Short names for targets: `web: openstack:web-01`. */
  aliases: Record<string, string>;
  /** Named sets of consoles: `vconsole open @NAME` (src/config/workspaces.ts). */
  workspaces?: Record<string, Workspace>;
}

/**
 * What each `defaults` key accepts, and how to say so: `provider` follows the registry, the
 * provider options' keys come from their declarations, then the command flags'.
 */
function defaultKeys(providers: readonly ConsoleProvider[]): Map<string, FileKey> {
  const bareNameProviders = bareNameProviderIds(providers);
  const keys: FileKey[] = [
    {
      key: 'provider',
      read: (v) => (typeof v === 'string' && bareNameProviders.includes(v) ? v : undefined),
      allowed: oneOf(bareNameProviders),
    },
    ...[...PROVIDER_OPTIONS, ...COMMAND_FLAGS].flatMap((option) => (option.config ? [option.config] : [])),
  ];
  return new Map(keys.map((key) => [key.key, key]));
}
const TOP_KEYS = ['defaults', 'aliases', 'workspaces'];

function isText(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}

/**
 * Where the config file is looked for: $XDG_CONFIG_HOME/vconsole/config.yaml when set, else
 * %APPDATA%\vconsole\config.yaml on Windows (the roaming profile, where Windows programs keep
 * settings) and ~/.config/vconsole/config.yaml elsewhere.
 */
export function defaultConfigPath(
  env: NodeJS.ProcessEnv = process.env,
  home = os.homedir(),
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32') {
    const base = env.XDG_CONFIG_HOME || env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(base, 'vconsole', 'config.yaml');
  }
  const base = env.XDG_CONFIG_HOME || path.posix.join(home, '.config');
  return path.posix.join(base, 'vconsole', 'config.yaml');
}

/**
 * Parses and validates a config file's text. An unknown key or a bad value is a UsageError
 * naming the file, the key and what is allowed.
 */
export async function parseConfig(text: string, file: string, providers: readonly ConsoleProvider[] = PROVIDERS): Promise<VconsoleConfig> {
  // The YAML parser loads only when a config file exists.
  const { parse: parseYaml } = await import('yaml');
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new UsageError(`config ${file}: not valid YAML (${(err as Error).message.split('\n')[0]})`, 'fix the file or pass --config');
  }
  if (doc === null || doc === undefined) return { file, defaults: {}, aliases: {} };
  if (!isRecord(doc)) throw new UsageError(`config ${file}: expected a mapping with "defaults" and "aliases"`);
  for (const key of Object.keys(doc)) {
    if (!TOP_KEYS.includes(key))
      throw new UsageError(`config ${file}: unknown key "${echoInput(key)}"`, `known keys: ${TOP_KEYS.join(', ')}`);
  }
  const defaults: ConfigDefaults = {};
  const rawDefaults = doc.defaults ?? {};
  if (!isRecord(rawDefaults)) throw new UsageError(`config ${file}: "defaults" must be a mapping`);
  const keys = defaultKeys(providers);
  for (const [key, value] of Object.entries(rawDefaults)) {
    const rule = keys.get(key);
    if (!rule) {
      throw new UsageError(`config ${file}: unknown key "defaults.${echoInput(key)}"`, `known keys: ${[...keys.keys()].join(', ')}`);
    }
    if (rule.read(value) === undefined) {
      throw new UsageError(
        `config ${file}: bad value ${echoInput(JSON.stringify(value) ?? String(value))} for "defaults.${key}"`,
        `use ${rule.allowed}`,
      );
    }
    (defaults as Record<string, unknown>)[key] = value;
  }
  const aliases: Record<string, string> = {};
  const rawAliases = doc.aliases ?? {};
  if (!isRecord(rawAliases)) throw new UsageError(`config ${file}: "aliases" must be a mapping of name: target`);
  for (const [name, target] of Object.entries(rawAliases)) {
    if (!isText(target)) throw new UsageError(`config ${file}: alias "${echoInput(name)}" must name a target, e.g. openstack:web-01`);
    aliases[name] = target as string;
  }
  return { file, defaults, aliases, workspaces: parseWorkspaces(doc.workspaces, file) };
}

/**
 * Loads `--config FILE`, else `$VCONSOLE_CONFIG`, else the default file. A named file must
 * exist and be a file (usage error otherwise); the default one is optional.
 */
export async function loadConfig(explicit?: string, env: NodeJS.ProcessEnv = process.env): Promise<VconsoleConfig> {
  const namedBy = explicit !== undefined ? '--config' : env.VCONSOLE_CONFIG ? 'VCONSOLE_CONFIG' : undefined;
  const file = explicit ?? (env.VCONSOLE_CONFIG || defaultConfigPath(env));
  let text: string;
  try {
    text = readConfigText(file);
  } catch (err) {
    if (err instanceof VconsoleError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const absent = code === 'ENOENT' || code === 'ENOTDIR';
    if (absent && !namedBy) return { defaults: {}, aliases: {} };
    if (absent) throw new UsageError(`config file ${file} does not exist`, `check ${namedBy}`);
    if (code === 'EISDIR') {
      throw new UsageError(
        `config file ${file} is a directory`,
        namedBy ? `${namedBy} must name a YAML file` : 'it must be a YAML file (or pass --config FILE)',
      );
    }
    throw new VconsoleError(`cannot read config file ${file}: ${fileErrorCause(err)}`);
  }
  return parseConfig(text, file);
}

/**
 * The config file's text: a regular file of at most CONFIG_FILE_MAX_BYTES. A FIFO would hang the
 * read and /dev/zero would never end, so neither is read at all (opened without blocking, then
 * looked at); a file that grows while read is cut at the cap and refused.
 */
function readConfigText(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!stat.isFile())
      throw new UsageError(
        `config file ${file} is not a regular file (${fileKind(stat)})`,
        'point --config or VCONSOLE_CONFIG at a YAML file',
      );
    const tooBig = () =>
      new UsageError(
        `config file ${file} is larger than ${CONFIG_FILE_MAX_BYTES / 1024 / 1024} MiB`,
        'a config file holds defaults, aliases and workspaces: check it is the right file',
      );
    if (stat.size > CONFIG_FILE_MAX_BYTES) throw tooBig();
    const buffer = Buffer.alloc(CONFIG_FILE_MAX_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read)
      read = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (length > CONFIG_FILE_MAX_BYTES) throw tooBig();
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function fileKind(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/** An alias's target, or the input itself. Aliases do not chain. */
export function expandAlias(input: string, config: VconsoleConfig): string {
  return Object.hasOwn(config.aliases, input) ? config.aliases[input] : input;
}
