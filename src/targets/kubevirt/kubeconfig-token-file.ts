import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import { VconsoleError, describeError } from '../../errors.js';

// A kubeconfig user's `tokenFile`: a bearer token kept in a file (kubectl reads it and trims the whitespace around
// it; an inline `token` takes precedence). @kubernetes/client-node 1.4.0 drops the field when it parses a
// kubeconfig, so such a user reached the API as system:anonymous; vconsole reads it itself.

type Entry = Record<string, unknown>;

/** kubeconfig-plain.ts's KubeCredentials, spelt out here so that neither module imports the other's. */
interface Credentials {
  getCurrentContext(): string;
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

const isEntry = (value: unknown): value is Entry => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The tokenFile (absolute: relative to its kubeconfig's directory) of the user called `userName` in the
 * first of `files` that defines that user, as kubectl merges them; undefined when that user has none.
 */
export async function tokenFileOfUser(files: readonly string[], userName: string): Promise<string | undefined> {
  const { parse } = await import('yaml');
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue; // client-node has read these files already and worded their errors
    }
    const users = isEntry(doc) && Array.isArray(doc.users) ? (doc.users as unknown[]) : [];
    const found = users.find((u): u is Entry => isEntry(u) && u.name === userName);
    if (!found) continue;
    const tokenFile = isEntry(found.user) ? found.user.tokenFile : undefined;
    return typeof tokenFile === 'string' && tokenFile ? path.resolve(path.dirname(file), tokenFile) : undefined;
  }
  return undefined;
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
