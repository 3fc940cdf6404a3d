/**
 * One keep-alive HTTPS agent per TLS identity (CA, client certificate and key, verification), so
 * the requests of one kubeconfig share their connections: a pre-flight's GET, the console dial
 * after it and the pre-flights of fifty VMs reuse TLS sessions instead of a handshake each, as
 * kubectl's one transport per config does. client-node makes a fresh agent per request; the
 * plain reader (kubeconfig-plain.ts) takes its agents from here. An idle connection is unref'd by
 * Node.js (it never holds the process) and closes when the server's Keep-Alive hint says.
 */
import { createHash } from 'node:crypto';
import https from 'node:https';
import { TLS_AGENTS_KEPT } from './limits.js';

const agents = new Map<string, https.Agent>();

/** The TLS material requests of one kubeconfig user present: what tells one agent from another. */
export interface TlsIdentity {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
}

/** A fingerprint of the TLS material: the key is never kept as text. */
function fingerprint({ ca, cert, key, rejectUnauthorized }: TlsIdentity): string {
  const hash = createHash('sha256');
  for (const bytes of [ca, cert, key]) hash.update(`${bytes?.length ?? -1}:`).update(bytes ?? '');
  return `${hash.digest('hex')}:${String(rejectUnauthorized)}`;
}

/** The shared keep-alive agent for these TLS settings; new material (a rotated certificate) gets a new one. */
export function agentFor(identity: TlsIdentity): https.Agent {
  const key = fingerprint(identity);
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key);
  } else {
    agent = new https.Agent({ ...identity, keepAlive: true, scheduling: 'lifo' });
    const oldest = agents.keys().next();
    if (agents.size >= TLS_AGENTS_KEPT && !oldest.done) agents.delete(oldest.value);
  }
  agents.set(key, agent);
  return agent;
}
