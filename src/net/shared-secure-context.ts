import https from 'node:https';
import tls from 'node:tls';

/**
 * What a connection's TLS context is made of when it is given as options: a CA, a client
 * certificate and its key (PEM or DER bytes, as node:tls takes them).
 */
type Material = https.RequestOptions['ca'] | https.RequestOptions['key'];

/** Options that shape a context beyond the CA, certificate and key: with any of them set, nothing is shared. */
const OTHER_CONTEXT_OPTIONS = [
  'pfx',
  'passphrase',
  'ciphers',
  'sigalgs',
  'ecdhCurve',
  'dhparam',
  'crl',
  'minVersion',
  'maxVersion',
  'secureProtocol',
  'secureOptions',
  'honorCipherOrder',
  'sessionIdContext',
  'privateKeyEngine',
  'privateKeyIdentifier',
  'clientCertEngine',
  'ticketKeys',
  'sessionTimeout',
] as const;

/** Request options as node:https takes them, with the context tls.connect is given (missing from https's types). */
export type SharedContextOptions = https.RequestOptions & { secureContext?: tls.SecureContext };

/** Contexts kept, newest last; a kubeconfig names a handful of clusters at most. */
const MAX_KEPT = 8;
const kept = new Map<string, tls.SecureContext>();

/**
 * The request options with one tls.SecureContext for their CA, certificate and key, the same
 * object for every request and console dial to the same cluster with the same files. Node.js
 * otherwise makes a context per connection (tls.connect), each parsing the PEM and building an
 * OpenSSL store: three at `open`'s start (the VMI, the access review, the console) on two
 * cores shared with the starting viewer. Files are still read for every request by the
 * caller, so a rotated certificate makes a new context.
 *
 * The context is made from what the connection would use: the request's options overlaid with
 * a plain https.Agent's (an agent's options win when Node.js opens its socket). Nothing is
 * shared, and `opts` is returned as it was, when another agent (a proxy's) opens the
 * connection, when any other option shapes the context (pfx, ciphers, ...), or when making it
 * fails: the connection then makes its own and reports what is wrong as it always did.
 */
export function withSharedSecureContext(opts: SharedContextOptions): SharedContextOptions {
  if (opts.secureContext) return opts;
  const agent = opts.agent;
  if (agent !== undefined && !(agent instanceof https.Agent && agent.constructor === https.Agent)) return opts;
  const effective: SharedContextOptions = { ...opts, ...(agent ? (agent as https.Agent & { options: SharedContextOptions }).options : {}) };
  if (effective.secureContext || OTHER_CONTEXT_OPTIONS.some((name) => effective[name] !== undefined)) return opts;
  const context = sharedContext(effective.ca, effective.cert, effective.key);
  return context ? { ...opts, secureContext: context } : opts;
}

function sharedContext(ca: Material, cert: Material, key: Material): tls.SecureContext | undefined {
  const parts = [ca, cert, key].map(materialParts);
  if (parts.includes(undefined)) return undefined;
  const id = JSON.stringify(parts);
  let context = kept.get(id);
  if (context) return context;
  try {
    context = tls.createSecureContext({ ca, cert, key } as tls.SecureContextOptions);
  } catch {
    return undefined;
  }
  kept.set(id, context);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
  return context;
}

/**
 * The material as text, to compare (a CA is a few KiB): the bytes themselves, so equal material
 * finds the same context; undefined for what is not plain PEM or DER (a key with its own passphrase).
 */
function materialParts(material: Material): string[] | undefined {
  if (material === undefined) return [];
  const parts: unknown[] = Array.isArray(material) ? material : [material];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(`s${part}`);
    else if (Buffer.isBuffer(part)) texts.push(`b${part.toString('base64')}`);
    else return undefined;
  }
  return texts;
}
