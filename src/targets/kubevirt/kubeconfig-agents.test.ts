import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { selfSignedCertificate } from '../../../test/fixtures/tls.js';
import { agentFor } from './kubeconfig-agents.js';
import { readPlainKubeconfig } from './kubeconfig-plain.js';
import { TLS_AGENTS_KEPT } from './limits.js';

const dir = mkdtempSync(join(tmpdir(), 'vconsole-kube-agents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An API server stand-in that counts the TLS connections made to it. */
async function countingServer() {
  const made = await selfSignedCertificate('127.0.0.1', ['127.0.0.1']);
  const server = https.createServer({ cert: made.certPem, key: made.keyPem }, (_req, res) => res.end('{}'));
  let connections = 0;
  server.on('secureConnection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: made.certPem,
    connections: () => connections,
    close: () => server.close(),
  };
}

function get(url: string, options: https.RequestOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, options, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('kubeconfig agents', () => {
  it("one kubeconfig's requests share one TLS connection instead of a handshake each", async () => {
    const api = await countingServer();
    try {
      const file = join(dir, 'config.yaml');
      writeFileSync(
        file,
        stringify({
          clusters: [{ name: 'c', cluster: { server: api.url, 'certificate-authority-data': Buffer.from(api.ca).toString('base64') } }],
          users: [{ name: 'u', user: { token: 't' } }],
          contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'ctx',
        }),
      );
      const plain = await readPlainKubeconfig(file);
      for (let request = 0; request < 3; request++) {
        const options: https.RequestOptions = {};
        await plain!.credentials.applyToHTTPSOptions(options);
        expect(await get(`${api.url}/api`, options)).toBe(200);
      }
      expect(api.connections()).toBe(1);
    } finally {
      api.close();
    }
  });

  it('gives new TLS material (a rotated certificate, another CA, verification off) its own agent', () => {
    const base = { ca: Buffer.from('ca-1'), cert: Buffer.from('cert-1'), key: Buffer.from('key-1') };
    const agent = agentFor(base);
    expect(agentFor({ ...base, ca: Buffer.from('ca-1') })).toBe(agent);
    expect(agentFor({ ...base, cert: Buffer.from('cert-2') })).not.toBe(agent);
    expect(agentFor({ ...base, ca: Buffer.from('ca-2') })).not.toBe(agent);
    expect(agentFor({ ...base, rejectUnauthorized: false })).not.toBe(agent);
    expect(agentFor(base)).toBe(agent);
  });

  it(`keeps at most ${TLS_AGENTS_KEPT}, letting the least recently used go`, () => {
    const first = agentFor({ ca: Buffer.from('first') });
    for (let i = 0; i < TLS_AGENTS_KEPT - 1; i++) agentFor({ ca: Buffer.from(`other-${i}`) });
    expect(agentFor({ ca: Buffer.from('first') })).toBe(first);
    for (let i = 0; i < TLS_AGENTS_KEPT; i++) agentFor({ ca: Buffer.from(`more-${i}`) });
    expect(agentFor({ ca: Buffer.from('first') })).not.toBe(first);
  });
});
