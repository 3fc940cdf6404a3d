import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki } from '../../../test/fixtures/tls.js';
import { failure } from '../../../test/support/streams.js';
import { describeError } from '../../errors.js';
import { splitTarget } from '../registry.js';
import { websocketProvider } from '../websocket/provider.js';

// The wrong scheme looks like a refused token (websockify resets a plain client on --ssl_only,
// a TLS client without a certificate): the user is told which scheme the proxy speaks.

const context = () => ({ signal: AbortSignal.timeout(20_000), log: () => undefined });
const dial = (url: string) => websocketProvider.resolve(splitTarget(url), { insecure: true }).dial(context());

let dir: string;
let tlsOnly: net.Server;
let plain: http.Server;
let resetter: net.Server;

function listen(server: net.Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-scheme-'));
  const pki = await createTestPki({ dir });
  // Like `nova-novncproxy --ssl_only`: a plain client's first bytes are not a ClientHello, so
  // the connection is dropped (Node's TLS server does the same).
  tlsOnly = tls.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (socket) => socket.destroy());
  tlsOnly.on('tlsClientError', () => undefined);
  // Like websockify without a certificate: a ClientHello is dropped, plain HTTP is answered.
  plain = http.createServer((_req, res) => res.writeHead(404).end());
  plain.on('connection', (socket) => socket.once('data', (chunk: Buffer) => chunk[0] === 0x16 && socket.destroy()));
  // Neither: every connection is reset, which is a refused token (websockify's TokenFile plugin).
  resetter = net.createServer((socket) => socket.resetAndDestroy());
  await Promise.all([listen(tlsOnly), listen(plain), listen(resetter)]);
});

afterAll(async () => {
  plain.closeAllConnections();
  await Promise.all([tlsOnly, plain, resetter].map((s) => new Promise((done) => s.close(done))));
  await rm(dir, { recursive: true, force: true });
});

describe('a console proxy reached with the wrong scheme', () => {
  it('ws:// to a TLS-only proxy is named a TLS mismatch, not a refused token', async () => {
    const { port } = tlsOnly.address() as AddressInfo;
    const error = await failure(dial(`ws://127.0.0.1:${port}/?token=t1`));
    expect(describeError(error)).toBe(
      `the console proxy at 127.0.0.1:${port} speaks TLS only, but the console URL says ws://; use wss:// (https:// for a noVNC page)`,
    );
  });

  it('wss:// to a plain proxy says the proxy speaks plain HTTP', async () => {
    const { port } = plain.address() as AddressInfo;
    const error = await failure(dial(`wss://127.0.0.1:${port}/?token=t1`));
    expect(describeError(error)).toBe(
      `the console proxy at 127.0.0.1:${port} speaks plain HTTP, not TLS, but the console URL says wss://; use ws:// (http:// for a noVNC page)`,
    );
  });

  it('a proxy that speaks neither is still a refused token, with a hint true to Nova', async () => {
    const { port } = resetter.address() as AddressInfo;
    const error = await failure(dial(`ws://127.0.0.1:${port}/?token=t1`));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    expect(describeError(error)).toContain('expires [consoleauth] token_ttl after it is issued');
    expect(describeError(error)).not.toContain('one-off');
  });
});
