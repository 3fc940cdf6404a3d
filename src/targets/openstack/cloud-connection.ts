// The cloud a target or a listing talks to: its config read (clouds.yaml, secure.yaml, OS_* and
// the flags), its CA, its Keystone session and Nova, and the real process's sources of them.
import fs from 'node:fs';
import os from 'node:os';
import { UsageError, describeError } from '../../errors.js';
import { tlsFromOptions } from '../dial/websockify.js';
import type { TargetOptions } from '../types.js';
import type { CloudConfig, ConfigSources } from './config.js';
import type { TlsSettings } from './http.js';
import { KeystoneSessions, type KeystoneSession } from './keystone.js';
import { NovaCompute } from './nova.js';
import { trustCloud } from './untrusted-cloud.js';

/** Keystone tokens of this process, shared by `proxy`/`open` targets and `list`. */
export const processSessions = new KeystoneSessions();

export interface CloudConnection {
  cloud: CloudConfig;
  tls: TlsSettings;
  session: KeystoneSession;
  compute: NovaCompute;
}

/** The real environment: process.env, the home and working directories, files on disk. */
export function processConfigSources(): ConfigSources {
  return { env: process.env, readFile: readIfExists, homeDir: os.homedir(), cwd: process.cwd() };
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    // Like openstacksdk: a missing or unreadable candidate is skipped, the next one tried.
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EISDIR') return undefined;
    throw new UsageError(`cannot read ${file}: ${describeError(err)}`);
  }
}

/**
 * The cloud the options pick (--cloud, --os-region, --insecure, --ca beat the files), its CA read,
 * and its Keystone session; none while a file found only in the current directory would send
 * the user's own secret somewhere without their yes (untrusted-cloud.ts).
 */
export async function connectCloud(sources: ConfigSources, options: TargetOptions, sessions: KeystoneSessions): Promise<CloudConnection> {
  const { loadCloudConfig } = await import('./config.js');
  const cloud = loadCloudConfig(sources, options);
  await trustCloud(cloud, options.questions);
  const tls = await tlsFromOptions(cloud.insecure, cloud.cacert);
  const session = sessions.session(cloud, tls);
  return { cloud, tls, session, compute: new NovaCompute(session, tls) };
}
