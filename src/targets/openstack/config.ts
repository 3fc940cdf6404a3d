import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';
import { isRecord as isDict } from '../../config/records.js';
import type { TargetOptions } from '../types.js';
import { cloudsOf, configFiles, readFirst, type ConfigSources, type Dict } from './config-files.js';
import { borrowedSecret, cloudLayers, normalizeKeys, pickFrom, type Layer } from './config-layers.js';

export { configFiles, type ConfigSources } from './config-files.js';

/**
 * OpenStack cloud configuration read the way the `openstack` CLI (openstacksdk + osc-lib)
 * reads it: clouds.yaml merged with secure.yaml, a cloud chosen by --cloud / $OS_CLOUD, and
 * the OS_* variables layered on top. Pure: the environment and the file reader are injected.
 */

export type EndpointInterface = 'public' | 'internal' | 'admin';
type AuthMethod = 'password' | 'application_credential';

/** The credentials for Keystone v3. Strings only; absent keys are undefined. */
interface CloudAuth {
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
  /**
   * Set when the cloud's address (auth_url, or its TLS settings) comes from a file found only in
   * the current directory while its secret comes from the user's own files or OS_* variables:
   * the secret goes there only with the user's yes (src/targets/openstack/untrusted-cloud.ts).
   */
  borrowed?: BorrowedSecret;
}

/** A secret of the user's that a file found only in the current directory would send somewhere. */
interface BorrowedSecret {
  /** The file found in the current directory. */
  file: string;
  /** What the secret is and where it comes from: `password from /home/u/.config/openstack/secure.yaml`. */
  secret: string;
}

/** What the command line asks for; each beats the files and the environment. */
interface CloudRequest {
  cloud?: string;
  region?: string;
  interface?: string;
  insecure?: boolean;
  ca?: string;
  /** `background` (a Tab's completion): a file found only in the current directory is not read. */
  questions?: TargetOptions['questions'];
}

/** OS_* variables that pick a cloud or a file rather than describe one. */
const SELECTORS = new Set(['OS_CLOUD', 'OS_CLOUD_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE', 'OS_REGION_NAME']);
const NOT_CONFIG = /^OS_(TEST|STD|LOG)/;

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
  // A Tab's completion does not even read a file found only in the current directory.
  const currentDirectory = request.questions !== 'background';
  const clouds = readFirst(sources, 'clouds', currentDirectory);
  const secure = readFirst(sources, 'secure', currentDirectory);
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
  // A cloud only the OS_* variables describe takes nothing from the files.
  const layers = isDict(all[name]) ? cloudLayers(name, env.all, clouds, secure) : cloudLayers(name, env.all, undefined, undefined);
  return complete(name, layers, normalizeKeys(base).regions, request, files);
}

function complete(name: string, layers: Layer[], regions: unknown, request: CloudRequest, files: string[]): CloudConfig {
  const pick = (...keys: string[]): string | undefined => pickFrom(layers, keys)?.value;
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
  // Where the secret goes: Keystone's address, and the TLS settings that say who may answer there.
  const aims = [['auth_url'], request.ca ? [] : ['cacert'], request.insecure ? [] : ['insecure', 'verify']];
  const borrowed = borrowedSecret(
    pickFrom(layers, [method === 'password' ? 'password' : 'application_credential_secret']),
    aims.flat().map((key) => pickFrom(layers, [key])),
  );
  return {
    name,
    method,
    auth: a,
    regionName: request.region || pick('region_name') || firstRegion(regions),
    interface: endpointInterface(request.interface || pick('interface', 'endpoint_type') || 'public'),
    cacert: request.ca || pick('cacert'),
    insecure: request.insecure === true || isTrue(pick('insecure')) || (verify !== undefined && !isTrue(verify)),
    files,
    ...(borrowed ? { borrowed } : {}),
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

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['true', '1', 'yes'].includes(value.toLowerCase());
}
