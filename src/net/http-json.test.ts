import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../../test/support/streams.js';
import { VconsoleError, describeError } from '../errors.js';
import { requestJson } from './http-json.js';

/** A real local server whose answer each test picks by path. */
let server: http.Server;
let base: string;
const sockets = new Set<Socket>();
/** Set when the server saw the client go away mid-request. */
const clientGone = new Set<string>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.on('close', () => {
      if (!res.writableEnded) clientGone.add(req.url ?? '');
    });
    switch (req.url) {
      case '/ok':
        res.setHeader('Content-Type', 'application/json');
        return res.end(JSON.stringify({ kind: 'Pod', echo: req.method }));
      case '/echo':
        return req.on('data', (chunk: Buffer) => res.end(chunk));
      case '/huge': {
        // An endless body: only the client's cap ends it.
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      case '/silent':
        return; // never answers
      case '/html':
        return res.end('<html>token=s3cr3t-in-the-page</html>');
      case '/missing':
        res.statusCode = 404;
        return res.end('{"message":"not here"}');
      default:
        res.statusCode = 500;
        return res.end();
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  server.close();
  await once(server, 'close');
});

const request = { service: 'the test API' };

describe('requestJson', () => {
  it('sends a JSON body and parses the JSON answer', async () => {
    const res = await requestJson(`${base}/echo`, { ...request, method: 'POST', body: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ a: 1 });
    expect((await requestJson(`${base}/ok`, request)).json()).toEqual({ kind: 'Pod', echo: 'GET' });
  });

  it('hands any status back to the caller, with the text', async () => {
    const res = await requestJson(`${base}/missing`, request);
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"message":"not here"}');
  });

  it('stops reading a body larger than the cap', async () => {
    const error = await failure(requestJson(`${base}/huge`, { ...request, maxBodyBytes: 256 * 1024 }));
    expect(error).toBeInstanceOf(VconsoleError);
    expect(error.message).toMatch(/^the test API at 127\.0\.0\.1:\d+ answered with more than 262144 bytes$/);
  });

  it('gives up on a server that does not answer in time, and hangs up', async () => {
    // The server never answers: that the request failed at all is the timeout at work.
    const error = await failure(requestJson(`${base}/silent`, { ...request, timeoutMs: 300, unreachableHint: 'check the server' }));
    expect(describeError(error)).toMatch(/^the test API at 127\.0\.0\.1:\d+ did not answer within 0\.3 s; check the server$/);
    await expect.poll(() => clientGone.has('/silent'), { timeout: 10_000 }).toBe(true);
  });

  it('is cancelled by its signal', async () => {
    const controller = new AbortController();
    const pending = requestJson(`${base}/silent`, { ...request, signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).message).toBe('request to the test API cancelled');
    const already = AbortSignal.abort();
    expect((await failure(requestJson(`${base}/ok`, { ...request, signal: already }))).message).toBe('request to the test API cancelled');
  });

  it('says who sent a body that is not JSON, without quoting it', async () => {
    const res = await requestJson(`${base}/html`, request);
    let error: unknown;
    try {
      res.json();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(VconsoleError);
    expect(describeError(error)).toMatch(/^the test API at 127\.0\.0\.1:\d+ answered with a body that is not JSON; check that the URL/);
    expect(describeError(error)).not.toContain('s3cr3t');
  });

  it('names the service and host, never the path, when it cannot connect', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const error = await failure(requestJson(`http://127.0.0.1:${port}/v3/secret-path?token=abc`, request));
    expect(error.message).toBe(`cannot reach the test API at 127.0.0.1:${port}: connection refused by 127.0.0.1:${port}`);
  });
});
