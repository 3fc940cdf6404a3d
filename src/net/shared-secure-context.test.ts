import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, type TestPki } from '../../test/fixtures/tls.js';
import { withSharedSecureContext } from './shared-secure-context.js';

/** An HTTPS server with a certificate from `pki`, answering 200 "ok". */
async function serverOf(pki: TestPki): Promise<{ port: number; close(): void }> {
  const server = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** GET / with `options`: 'ok', or the TLS error's code. */
function get(port: number, options: https.RequestOptions): Promise<string> {
  return new Promise((resolve) => {
    const req = https.get({ ...options, host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', (err: Error & { code?: string }) => resolve(err.code ?? err.message));
  });
}

/** What a kubeconfig's request options are: the CA and a plain agent made with it (kubeconfig-plain.ts). */
const kubeconfigOptions = (ca: string): https.RequestOptions => ({ ca: Buffer.from(ca), agent: new https.Agent({ ca: Buffer.from(ca) }) });

describe('withSharedSecureContext', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-shared-context-'));
  let cluster: TestPki;
  let other: TestPki;
  let clusterServer: { port: number; close(): void };
  let otherServer: { port: number; close(): void };
  beforeAll(async () => {
    [cluster, other] = await Promise.all([createTestPki({ dir: join(dir) }), createTestPki({ dir: mkdtempSync(join(dir, 'other-')) })]);
    [clusterServer, otherServer] = await Promise.all([serverOf(cluster), serverOf(other)]);
  });
  afterAll(() => {
    clusterServer.close();
    otherServer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every connection to a cluster with the same CA one context (the pre-flight and the dial)', async () => {
    const first = withSharedSecureContext(kubeconfigOptions(cluster.caPem));
    const second = withSharedSecureContext(kubeconfigOptions(cluster.caPem));
    expect(first.secureContext).toBeDefined();
    expect(second.secureContext).toBe(first.secureContext);
    expect(await get(clusterServer.port, first)).toBe('ok');
    expect(await get(clusterServer.port, second)).toBe('ok');
  });

  it("still refuses a server the kubeconfig's CA did not sign", async () => {
    const options = withSharedSecureContext(kubeconfigOptions(cluster.caPem));
    expect(await get(otherServer.port, options)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('makes a new context when the CA changes (a rotated file is read at each request)', async () => {
    const before = withSharedSecureContext(kubeconfigOptions(cluster.caPem));
    const after = withSharedSecureContext(kubeconfigOptions(other.caPem));
    expect(after.secureContext).not.toBe(before.secureContext);
    expect(await get(otherServer.port, after)).toBe('ok');
  });

  it("takes the agent's TLS options, as the connection would (they win over the request's)", async () => {
    const options = withSharedSecureContext({ ca: Buffer.from(other.caPem), agent: new https.Agent({ ca: cluster.caPem }) });
    expect(await get(clusterServer.port, options)).toBe('ok');
  });

  it('shares nothing when something else shapes the context or another agent connects', () => {
    const withPfx = { ...kubeconfigOptions(cluster.caPem), pfx: Buffer.from('x') };
    expect(withSharedSecureContext(withPfx).secureContext).toBeUndefined();
    class ProxyAgent extends https.Agent {}
    const proxied = { ca: cluster.caPem, agent: new ProxyAgent() };
    expect(withSharedSecureContext(proxied).secureContext).toBeUndefined();
    // The connection makes its own and fails as it always did.
    const broken = { ca: cluster.caPem, cert: cluster.clientCertPem, key: 'not a key' };
    expect(withSharedSecureContext(broken)).toBe(broken);
  });
});
