// Which Proxmox VE cluster the options point at and how vconsole logs in: an API token from a
// 0600 file, or a user and a password file (a ticket from /access/ticket). Read on first use,
// never at resolve.
import { UsageError } from '../../errors.js';
import { readSecretLine } from '../../files/secret-line.js';
import { echoInput } from '../../text/terminal-text.js';
import { tlsFromOptions, type TlsSettings } from '../dial/websockify.js';
import type { TargetOptions } from '../types.js';

export type PveCredentials =
  /** `USER@REALM!TOKENID=SECRET`, sent as `Authorization: PVEAPIToken=...`. */
  | { kind: 'token'; token: string; user: string }
  /** A user whose password buys a ticket (cookie PVEAuthCookie + CSRFPreventionToken). */
  | { kind: 'password'; user: string; password: string };

export interface PveCluster {
  /** `https://host:8006`. */
  url: string;
  credentials: PveCredentials;
  tls: TlsSettings;
}

const NO_CLUSTER_HINT =
  'give --pve-url https://HOST:8006 with --pve-token-file FILE (or --pve-user USER@REALM --pve-password-file FILE), or set defaults.pveUrl and defaults.pveTokenFile in the config file';

/** What its credential files hold, for the hints (readSecretLine refuses them when others may read them, as every secret file). */
const SECRET = { what: 'secret' };

/** An API token as its file holds it: `USER@REALM!TOKENID=SECRET` (a leading `PVEAPIToken=` is allowed). */
const TOKEN = /^([^\s@!=:]+@[^\s@!=:]+)!([A-Za-z][A-Za-z0-9._-]*)=(\S+)$/;

/** The token file's line checked, without ever echoing it. */
export function parseTokenLine(line: string, file: string): { token: string; user: string } {
  const token = line.replace(/^PVEAPIToken=/, '');
  const match = TOKEN.exec(token);
  if (!match)
    throw new UsageError(
      `--pve-token-file ${echoInput(file)}: the first line is not an API token`,
      'write it as USER@REALM!TOKENID=SECRET, e.g. vconsole@pve!console=xxxxxxxx-xxxx-... (the secret pveum prints once)',
    );
  return { token, user: `${match[1]}!${match[2]}` };
}

/** The cluster of the options, its secrets read; a usage error when something is missing. */
export async function clusterFromOptions(options: TargetOptions): Promise<PveCluster> {
  if (!options.pveUrl) throw new UsageError('no Proxmox VE cluster given', NO_CLUSTER_HINT);
  const tls = await tlsFromOptions(options.insecure, options.ca);
  if (options.pveTokenFile) {
    const { token, user } = parseTokenLine(readSecretLine(options.pveTokenFile, '--pve-token-file', SECRET), options.pveTokenFile);
    return { url: options.pveUrl, tls, credentials: { kind: 'token', token, user } };
  }
  if (options.pveUser && options.pvePasswordFile) {
    const password = readSecretLine(options.pvePasswordFile, '--pve-password-file', SECRET);
    return { url: options.pveUrl, tls, credentials: { kind: 'password', user: options.pveUser, password } };
  }
  if (options.pveUser || options.pvePasswordFile)
    throw new UsageError(
      options.pveUser ? '--pve-user needs --pve-password-file' : '--pve-password-file needs --pve-user',
      'give both (or an API token with --pve-token-file)',
    );
  throw new UsageError(`no credentials for Proxmox VE at ${options.pveUrl}`, NO_CLUSTER_HINT);
}
