import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import { VconsoleError, describeError } from '../../errors.js';
import { isEntry, kubeconfigUser } from './kubeconfig-user.js';

// A kubeconfig user's `tokenFile`: a bearer token kept in a file (kubectl reads it and trims the whitespace around
// it; an inline `token` takes precedence). @kubernetes/client-node 1.4.0 drops the field when it parses a
// kubeconfig, so such a user reached the API as system:anonymous; vconsole reads it itself.

/** kubeconfig-plain.ts's KubeCredentials, spelt out here so that neither module imports the other's. */
interface Credentials {
  getCurrentContext(): string;
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

/**
 * The tokenFile (absolute: relative to its kubeconfig's directory) of the user called `userName` in the
 * first of `files` that defines that user, as kubectl merges them; undefined when that user has none.
 */
export async function tokenFileOfUser(files: readonly string[], userName: string): Promise<string | undefined> {
  const found = await kubeconfigUser(files, userName);
  const tokenFile = found && isEntry(found.user) ? found.user.tokenFile : undefined;
  return found && typeof tokenFile === 'string' && tokenFile ? path.resolve(path.dirname(found.file), tokenFile) : undefined;
}

/** The token in `file`, read at each request (a rotated token is picked up), whitespace trimmed. */
export function readTokenFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new VconsoleError(`cannot read the kubeconfig user's tokenFile ${file}: ${describeError(err)}`, {
      hint: "check the user's tokenFile in the kubeconfig",
    });
  }
  const token = text.trim();
  if (!token) throw new VconsoleError(`the kubeconfig user's tokenFile ${file} is empty`, { hint: 'put the bearer token in it' });
  return token;
}

/** `credentials` plus the tokenFile's bearer token when they set no Authorization of their own. */
export function withTokenFile(credentials: Credentials, file: string): Credentials {
  return {
    getCurrentContext: () => credentials.getCurrentContext(),
    async applyToHTTPSOptions(opts) {
      await credentials.applyToHTTPSOptions(opts);
      const headers = (opts.headers ??= {}) as http.OutgoingHttpHeaders;
      if (!headers.Authorization && !headers.authorization) headers.Authorization = `Bearer ${readTokenFile(file)}`;
    },
  };
}
