import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';
import { isRecord as isDict } from '../../config/records.js';

/**
 * OpenStack cloud configuration read the way the `openstack` CLI (openstacksdk + osc-lib)
 * reads it: clouds.yaml merged with secure.yaml, a cloud chosen by --cloud / $OS_CLOUD, and
 * the OS_* variables layered on top. Pure: the environment and the file reader are injected.
 */

export type EndpointInterface = 'public' | 'internal' | 'admin';
export type AuthMethod = 'password' | 'application_credential';

/** The credentials for Keystone v3. Strings only; absent keys are undefined. */
export interface CloudAuth {
  authUrl: string;
  username?: string;
  userId?: string;
  password?: string;
  userDomainName?: string;
  userDomainId?: string;
  projectName?: string;
  projectId?: string;
  projectDomainName?: string;
  projectDomainId?: string;
  applicationCredentialId?: string;
  applicationCredentialName?: string;
  applicationCredentialSecret?: string;
}

export interface CloudConfig {
  /** The clouds.yaml entry, or `envvars` ($OS_CLOUD_NAME) when only OS_* variables are set. */
  name: string;
  method: AuthMethod;
  auth: CloudAuth;
  /** Region of the compute endpoint; undefined takes the first the catalog lists. */
  regionName?: string;
  interface: EndpointInterface;
  /** CA bundle file (`cacert`, $OS_CACERT, --ca). */
  cacert?: string;
  /** `verify: false`, `insecure: true`, $OS_INSECURE, --insecure. */
  insecure: boolean;
  /** Config files that contributed, for messages. */
  files: string[];
}

export interface ConfigSources {
  env: Readonly<Record<string, string | undefined>>;
  /** File contents, or undefined when the file does not exist. */
  readFile(file: string): string | undefined;
  homeDir: string;
  cwd: string;
}

/** What the command line asks for; each beats the files and the environment. */
export interface CloudRequest {
  cloud?: string;
  region?: string;
  interface?: string;
  insecure?: boolean;
  ca?: string;
}

const SUFFIXES = ['.yaml', '.yml', '.json'];
/** OS_* variables that pick a cloud or a file rather than describe one. */
const SELECTORS = new Set(['OS_CLOUD', 'OS_CLOUD_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE', 'OS_REGION_NAME']);
const NOT_CONFIG = /^OS_(TEST|STD|LOG)/;
type Dict = Record<string, unknown>;

/** Directories searched for clouds.yaml and secure.yaml, first match wins (openstacksdk order). */
function configDirectories(sources: ConfigSources): string[] {
  const dirs = [sources.cwd];
  const xdg = sources.env.XDG_CONFIG_HOME;
  if (xdg) dirs.push(path.join(xdg, 'openstack'));
  dirs.push(path.join(sources.homeDir, '.config', 'openstack'), '/etc/openstack');
  return [...new Set(dirs)];
}

/** Candidate files for `clouds` or `secure`, the $OS_CLIENT_*_FILE override first. */
export function configFiles(sources: ConfigSources, kind: 'clouds' | 'secure'): string[] {
  const override = sources.env[kind === 'clouds' ? 'OS_CLIENT_CONFIG_FILE' : 'OS_CLIENT_SECURE_FILE'];
  const files = configDirectories(sources).flatMap((dir) => SUFFIXES.map((s) => path.join(dir, `${kind}${s}`)));
  return override ? [override, ...files] : files;
}

/**
 * Whether a cloud is named or described here (--cloud, $OS_CLOUD, OS_* variables such as
 * OS_AUTH_URL, a clouds.yaml where openstacksdk looks), without checking that it is whole.
 */
export function hasCloudConfiguration(sources: ConfigSources, request: CloudRequest = {}): boolean {
  if (request.cloud || sources.env.OS_CLOUD) return true;
  if (Object.keys(osEnvironment(sources.env).describing).length > 0) return true;
  return configFiles(sources, 'clouds').some((file) => sources.readFile(file) !== undefined);
}

/** Picks and completes one cloud; throws UsageError naming what is missing. */
export function loadCloudConfig(sources: ConfigSources, request: CloudRequest = {}): CloudConfig {
  const clouds = readFirst(sources, 'clouds');
  const secure = readFirst(sources, 'secure');
  const all = deepMerge(cloudsOf(clouds), cloudsOf(secure));
  const files = [clouds?.file, secure?.file].filter((f): f is string => !!f);
  const env = osEnvironment(sources.env);
  const envName = sources.env.OS_CLOUD_NAME || 'envvars';
  const hasEnvCloud = Object.keys(env.describing).length > 0;

  const requested = request.cloud || sources.env.OS_CLOUD || undefined;
  let name: string;
  let base: Dict;
  if (requested) {
    if (isDict(all[requested])) base = all[requested];
    else if (requested === envName && hasEnvCloud) base = {};
    else throw cloudNotFound(requested, all, files);
    name = requested;
  } else if (hasEnvCloud) {
    name = envName;
    base = {};
  } else {
    const names = Object.keys(all).filter((n) => isDict(all[n]));
    if (names.length === 0) {
      throw new UsageError(
        'no OpenStack credentials found',
        'create clouds.yaml (./, ~/.config/openstack/ or /etc/openstack/) and pass --cloud NAME, or source an openrc file (OS_AUTH_URL, OS_USERNAME, ...)',
      );
    }
    if (names.length > 1) {
      throw new UsageError(`several clouds in ${files[0]} (${names.join(', ')})`, 'pick one with --cloud NAME or $OS_CLOUD');
    }
    name = names[0];
    base = all[name] as Dict;
  }
  return complete(name, normalizeKeys(base), env.all, request, files);
}

function complete(name: string, cloud: Dict, env: Dict, request: CloudRequest, files: string[]): CloudConfig {
  const auth = isDict(cloud.auth) ? normalizeKeys(cloud.auth) : {};
  // Like openstacksdk: a value outside `auth` (command line, environment) beats one inside.
  const pick = (...keys: string[]): string | undefined => {
    for (const source of [env, cloud, auth]) {
      for (const key of keys) {
        const value = source[key];
        // A mapping or list where a string belongs is not a value (it was "[object Object]").
        if (typeof value === 'string' ? value !== '' : typeof value === 'number' || typeof value === 'boolean') return String(value);
      }
    }
    return undefined;
  };
  const a: CloudAuth = {
    authUrl: pick('auth_url') ?? '',
    username: pick('username', 'user_name'),
    userId: pick('user_id'),
    password: pick('password'),
    userDomainName: pick('user_domain_name'),
    userDomainId: pick('user_domain_id'),
    projectName: pick('project_name', 'tenant_name'),
    projectId: pick('project_id', 'tenant_id'),
    projectDomainName: pick('project_domain_name'),
    projectDomainId: pick('project_domain_id'),
    applicationCredentialId: pick('application_credential_id'),
    applicationCredentialName: pick('application_credential_name'),
    applicationCredentialSecret: pick('application_credential_secret'),
  };
  const where = `cloud "${echoInput(name)}"`;
  if (!a.authUrl) throw new UsageError(`${where} has no auth_url`, 'set auth.auth_url in clouds.yaml or OS_AUTH_URL');
  const method = authMethod(pick('auth_type', 'auth_plugin'), a, where);
  applyDomainDefaults(a, pick('domain_id'), pick('domain_name'), pick('default_domain') ?? 'default');
  checkCredentials(a, method, where);

  const verify = pick('verify');
  return {
    name,
    method,
    auth: a,
    regionName: request.region || pick('region_name') || firstRegion(cloud.regions),
    interface: endpointInterface(request.interface || pick('interface', 'endpoint_type') || 'public'),
    cacert: request.ca || pick('cacert'),
    insecure: request.insecure === true || isTrue(pick('insecure')) || (verify !== undefined && !isTrue(verify)),
    files,
  };
}

function authMethod(authType: string | undefined, a: CloudAuth, where: string): AuthMethod {
  switch (authType?.toLowerCase()) {
    case undefined:
      return a.applicationCredentialSecret && !a.password ? 'application_credential' : 'password';
    case 'password':
    case 'v3password':
      return 'password';
    case 'v3applicationcredential':
    case 'applicationcredential':
    case 'application_credential':
      return 'application_credential';
    default:
      throw new UsageError(
        `${where} uses auth_type "${authType}", which vconsole does not support`,
        'use auth_type password or v3applicationcredential',
      );
  }
}

/** domain_id/domain_name stand for both domains; osc-lib falls back to the `default` domain. */
function applyDomainDefaults(a: CloudAuth, domainId: string | undefined, domainName: string | undefined, fallback: string): void {
  if (!a.userDomainId && !a.userDomainName) {
    if (domainId) a.userDomainId = domainId;
    else if (domainName) a.userDomainName = domainName;
    else if (a.username) a.userDomainId = fallback;
  }
  if (!a.projectDomainId && !a.projectDomainName) {
    if (domainId) a.projectDomainId = domainId;
    else if (domainName) a.projectDomainName = domainName;
    else if (a.projectName) a.projectDomainId = fallback;
  }
}

function checkCredentials(a: CloudAuth, method: AuthMethod, where: string): void {
  if (method === 'password') {
    if (!a.username && !a.userId) throw new UsageError(`${where} has no username`, 'set auth.username in clouds.yaml or OS_USERNAME');
    if (!a.password) throw new UsageError(`${where} has no password`, 'set auth.password in secure.yaml/clouds.yaml or OS_PASSWORD');
    if (!a.projectName && !a.projectId) {
      throw new UsageError(`${where} names no project`, 'set auth.project_name (or project_id) in clouds.yaml or OS_PROJECT_NAME');
    }
    return;
  }
  if (!a.applicationCredentialSecret) {
    throw new UsageError(
      `${where} has no application_credential_secret`,
      'set it in secure.yaml/clouds.yaml or OS_APPLICATION_CREDENTIAL_SECRET',
    );
  }
  if (!a.applicationCredentialId && !(a.applicationCredentialName && (a.userId || a.username))) {
    throw new UsageError(
      `${where} has no application_credential_id`,
      'set application_credential_id, or application_credential_name with username or user_id',
    );
  }
}

function endpointInterface(text: string): EndpointInterface {
  const value = text.toLowerCase().replace(/url$/, '');
  if (value === 'public' || value === 'internal' || value === 'admin') return value;
  throw new UsageError(`unknown endpoint interface "${echoInput(text)}"`, 'use public, internal or admin');
}

function firstRegion(regions: unknown): string | undefined {
  if (!Array.isArray(regions) || regions.length === 0) return undefined;
  const first: unknown = regions[0];
  if (typeof first === 'string') return first;
  return isDict(first) && typeof first.name === 'string' ? first.name : undefined;
}

/** OS_FOO_BAR -> foo_bar: every variable, and those that describe a cloud (not just pick one). */
function osEnvironment(env: ConfigSources['env']): { all: Dict; describing: Dict } {
  const all: Dict = {};
  const describing: Dict = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('OS_') || NOT_CONFIG.test(key) || value === undefined || value === '') continue;
    if (key === 'OS_CLOUD' || key === 'OS_CLOUD_NAME' || key.startsWith('OS_CLIENT_')) continue;
    const name = key.slice(3).toLowerCase();
    all[name] = value;
    if (!SELECTORS.has(key)) describing[name] = value;
  }
  return { all, describing };
}

function readFirst(sources: ConfigSources, kind: 'clouds' | 'secure'): { file: string; data: Dict } | undefined {
  for (const file of configFiles(sources, kind)) {
    const text = sources.readFile(file);
    if (text === undefined) continue;
    let data: unknown;
    try {
      data = parseYaml(text);
    } catch (err) {
      throw new UsageError(`cannot parse ${file}: ${(err as Error).message.split('\n')[0]}`, 'fix the YAML syntax');
    }
    if (!isDict(data)) throw new UsageError(`${file} is empty or not a mapping`, 'it must hold a "clouds:" mapping');
    return { file, data };
  }
  return undefined;
}

function cloudsOf(found: { data: Dict } | undefined): Dict {
  const clouds = found?.data.clouds;
  return isDict(clouds) ? clouds : {};
}

function cloudNotFound(name: string, all: Dict, files: string[]): UsageError {
  const known = Object.keys(all);
  const where = files.length ? ` in ${files[0]}` : ' (no clouds.yaml found)';
  return new UsageError(
    `cloud "${echoInput(name)}" not found${where}`,
    known.length ? `known clouds: ${known.join(', ')}` : 'check --cloud and $OS_CLOUD',
  );
}

/** secure.yaml's values win; nested mappings (auth) merge key by key. */
function deepMerge(a: Dict, b: Dict): Dict {
  const out: Dict = { ...a };
  for (const [key, value] of Object.entries(b)) {
    out[key] = isDict(out[key]) && isDict(value) ? deepMerge(out[key], value) : value;
  }
  return out;
}

/** `user-domain-name` and `user_domain_name` mean the same. */
function normalizeKeys(dict: Dict): Dict {
  return Object.fromEntries(Object.entries(dict).map(([k, v]) => [k.replace(/-/g, '_'), v]));
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['true', '1', 'yes'].includes(value.toLowerCase());
}
