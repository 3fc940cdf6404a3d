import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenStackFixture, type OpenStackFixture } from '../../../test/fixtures/openstack-api.js';
import { createTestPki, type TestPki } from '../../../test/fixtures/tls.js';
import { UsageError, describeError } from '../../errors.js';
import { splitTarget } from '../index.js';
import type { TargetOptions } from '../types.js';
import { ConsoleTokenRejectedError, firstChunk } from '../dial/websockify.js';
import { consoleUrlToWebSocket, websocketProvider } from './provider.js';
import { readBytes, failure } from '../../../test/support/streams.js';
import { thrownBy } from '../../../test/support/thrown.js';

const resolve = (text: string, options: TargetOptions = {}) => websocketProvider.resolve(splitTarget(text), options);
const context = () => ({ signal: AbortSignal.timeout(20_000), log: () => undefined });

describe('resolve', () => {
  it('shows host, port and path but never the token', () => {
    const t = resolve('wss://user:pw@proxy.example:6080/websockify?token=s3cr3t-tok#frag');
    expect(t.name).toMatch(/^wss:\/\/proxy\.example:6080\/websockify \[[0-9a-f]{6}\]$/);
    expect(t.provider).toBe('websocket');
    expect(`${t.name} ${t.input}`).not.toMatch(/s3cr3t|pw@/);
  });

  it('names two URLs that differ only in their tokens apart, and one URL alike, saying nothing of either token', () => {
    const a = resolve('ws://127.0.0.1:6082/?token=aaaaaaaa-1111');
    const b = resolve('ws://127.0.0.1:6082/?token=bbbbbbbb-2222');
    expect(a.name).not.toBe(b.name);
    expect(resolve('ws://127.0.0.1:6082/?token=aaaaaaaa-1111').name).toBe(a.name);
    expect(a.name.startsWith('ws://127.0.0.1:6082/ [')).toBe(true);
    expect(`${a.name} ${b.name}`).not.toMatch(/aaaa|1111|bbbb|2222/);
    // Nothing hidden, nothing added.
    expect(resolve('ws://127.0.0.1:6082/websockify').name).toBe('ws://127.0.0.1:6082/websockify');
  });

  it('refuses a URL it cannot parse, without echoing the token', () => {
    const error = thrownBy(() => resolve('ws://[bad/?token=s3cr3t-tok'));
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).not.toContain('s3cr3t');
  });
});

describe('pasted noVNC console URLs', () => {
  const T = 'c0ns0le-t0ken';
  it.each([
    [
      'vnc_lite.html with the token in path=',
      `http://nova.example:6080/vnc_lite.html?path=%3Ftoken%3D${T}`,
      `ws://nova.example:6080/?token=${T}`,
    ],
    ['vnc_auto.html with token=', `https://nova.example:6080/vnc_auto.html?token=${T}`, `wss://nova.example:6080/?token=${T}`],
    ['spice_auto.html with token=', `http://nova.example:6082/spice_auto.html?token=${T}`, `ws://nova.example:6082/?token=${T}`],
    ['a ws:// URL as typed', `ws://h:6080/websockify?token=${T}`, `ws://h:6080/websockify?token=${T}`],
  ])('%s becomes its websocket', (_shape, pasted, websocket) => {
    expect(consoleUrlToWebSocket(pasted).href).toBe(websocket);
  });

  it('resolves as a websocket target named without the token', () => {
    const t = resolve(`https://nova.example:6080/vnc_lite.html?path=%3Ftoken%3D${T}`);
    expect(t.provider).toBe('websocket');
    expect(t.name).toMatch(/^wss:\/\/nova\.example:6080\/ \[[0-9a-f]{6}\]$/);
    expect(`${t.name} ${t.input}`).not.toContain(T);
  });

  it('refuses a page URL without a token, as a usage error that says what to paste', () => {
    const error = thrownBy(() => resolve('http://nova.example:6080/vnc_lite.html'));
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toMatch(/carries no console token; paste the whole URL from "openstack console url show"/);
  });
});

describe('dial through a websockify-style proxy', () => {
  let fixture: OpenStackFixture;
  beforeAll(async () => {
    fixture = await startOpenStackFixture();
  });
  afterAll(() => fixture.close());
  beforeEach(() => {
    fixture.settings.proxyRejection = 'close-after-upgrade';
  });

  it('reads the VNC greeting with subprotocol binary and no Origin', async () => {
    const { url } = fixture.issueConsoleToken();
    const stream = await resolve(url).dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    expect(fixture.requests.at(-1)).toMatchObject({ service: 'proxy', status: 101, origin: undefined, protocols: 'binary' });
  });

  it.each(['close-after-upgrade', 'drop-before-upgrade'] as const)('says the token was rejected (%s)', async (style) => {
    fixture.settings.proxyRejection = style;
    const t = resolve(`ws://127.0.0.1:${fixture.proxyPort}/?token=never-issued-token`);
    const error = await failure(t.dial(context()));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    expect(describeError(error)).toContain('get a fresh console URL');
    expect(describeError(error)).not.toContain('never-issued-token');
  });

  it.each([
    ['vnc_lite.html', (port: number, token: string) => `http://127.0.0.1:${port}/vnc_lite.html?path=%3Ftoken%3D${token}`],
    ['vnc_auto.html', (port: number, token: string) => `http://127.0.0.1:${port}/vnc_auto.html?token=${token}`],
  ])('dials the websocket a pasted %s URL stands for', async (_page, pageUrl) => {
    const { token } = fixture.issueConsoleToken();
    const stream = await resolve(pageUrl(fixture.proxyPort, token)).dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    expect(fixture.requests.at(-1)).toMatchObject({ service: 'proxy', status: 101, path: '/?token=***' });
  });

  it('#spice hands the websocket over at once: a SPICE server waits for the client to speak first', async () => {
    const { url } = fixture.issueConsoleToken('spice-html5');
    const t = resolve(url, { consoleType: 'spice' });
    expect(t.facts.consoleType).toBe('spice');
    const stream = await t.dial(context());
    stream.write('REDQ');
    expect((await readBytes(stream, 4)).toString()).toBe('REDQ');
    stream.destroy();
  });

  it('takes a pasted spice_auto.html URL for a SPICE console unless told otherwise', () => {
    const page = 'http://nova.example:6082/spice_auto.html?token=t1';
    expect(resolve(page).facts.consoleType).toBe('spice');
    expect(resolve(page, { consoleType: 'auto' }).facts.consoleType).toBe('spice');
    expect(resolve(page, { consoleType: 'vnc' }).facts.consoleType).toBe('vnc');
    expect(resolve('http://nova.example:6080/vnc_auto.html?token=t1').facts.consoleType).toBe('vnc');
    expect(resolve('ws://nova.example:6082/spice_auto.html?token=t1').facts.consoleType).toBe('vnc');
  });

  it('rejects a one-off token used twice', async () => {
    const t = resolve(fixture.issueConsoleToken().url);
    (await t.dial(context())).destroy();
    expect((await failure(t.dial(context()))).message).toContain('console token rejected');
  });
});

describe('TLS (wss)', () => {
  let dir: string;
  let pki: TestPki;
  let server: https.Server;
  let port: number;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-wss-'));
    pki = await createTestPki({ dir });
    server = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem });
    const wss = new WebSocketServer({ server, handleProtocols: () => 'binary' });
    wss.on('connection', (ws) => ws.send(Buffer.from('RFB 003.008\n')));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await rm(dir, { recursive: true, force: true });
  });

  it('fails verification without the CA and says what to pass', async () => {
    const error = await failure(resolve(`wss://127.0.0.1:${port}/?token=t1`).dial(context()));
    expect(describeError(error)).toMatch(/certificate.*--ca FILE.*--insecure/s);
  });

  it('verifies with --ca FILE', async () => {
    const stream = await resolve(`wss://127.0.0.1:${port}/?token=t1`, { ca: pki.caFile }).dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
  });

  it('skips verification with --insecure', async () => {
    const stream = await resolve(`wss://127.0.0.1:${port}/?token=t1`, { insecure: true }).dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
  });

  it('names an unreadable CA file', async () => {
    const error = await failure(resolve(`wss://127.0.0.1:${port}/`, { ca: join(dir, 'missing.pem') }).dial(context()));
    expect(error.message).toContain('cannot read CA file');
  });
});

describe('firstChunk', () => {
  const silent = () => new Error('silent');

  it('hands the stream back with its first chunk and keeps order and flow control', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    stream.write('abc');
    const ready = await firstChunk(stream, AbortSignal.timeout(5_000), silent);
    expect(ready).toBe(stream);
    const more = Buffer.alloc(64 * 1024, 'z');
    // The writer sees backpressure again once the reader stops reading.
    expect(stream.write(more)).toBe(false);
    expect((await readBytes(ready, 3 + more.length)).toString()).toBe(`abc${more.toString()}`);
  });

  it('fails when the stream ends before any byte', async () => {
    const stream = new PassThrough();
    const result = firstChunk(stream, AbortSignal.timeout(5_000), silent);
    stream.end();
    await expect(result).rejects.toThrow('silent');
  });

  it('gives up when the signal aborts', async () => {
    const controller = new AbortController();
    const result = firstChunk(new PassThrough(), controller.signal, silent);
    controller.abort();
    await expect(result).rejects.toThrow('cancelled');
  });
});

describe('a console proxy that ends the console right after the upgrade', () => {
  let wss: WebSocketServer;
  let port: number;
  beforeAll(async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'binary' });
    wss.on('connection', (ws, req) => {
      const how = new URL(req.url ?? '/', 'ws://x').searchParams.get('token');
      // websockify when nothing listens behind it; nova-serialproxy refusing a token.
      if (how === 'downstream') ws.close(1011, 'Failed to connect to downstream server');
      else if (how === 'refuse') ws.terminate();
    });
    await new Promise((done) => wss.once('listening', done));
    port = (wss.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((done) => wss.close(done)));

  it('a close frame says its own reason, not that the token was rejected', async () => {
    // The token here is a word of the reason: the ending is told from the reason as said, and
    // the token is scrubbed from what is shown all the same.
    const error = await failure(resolve(`ws://127.0.0.1:${port}/?token=downstream`).dial(context()));
    expect(describeError(error)).toBe(
      "the console proxy could not reach the VM's console: Failed to connect to *** server; is the VM running?",
    );
  });

  it('a serial console closed without a frame right after the upgrade is a refusal, before it counts as open', async () => {
    const error = await failure(resolve(`ws://127.0.0.1:${port}/?token=refuse`, { consoleType: 'serial' }).dial(context()));
    expect(error).toBeInstanceOf(ConsoleTokenRejectedError);
    expect(describeError(error)).toBe(
      'the console was refused right after the upgrade: the token is wrong or expired; a Nova console token expires [consoleauth] token_ttl after it is issued (600 s by default): get a fresh console URL (openstack console url show)',
    );
  });

  it('a serial console that stays quiet and open is open', async () => {
    const stream = await resolve(`ws://127.0.0.1:${port}/?token=quiet`, { consoleType: 'serial' }).dial(context());
    expect(stream.destroyed).toBe(false);
    stream.destroy();
  });
});
