import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BrowserPageServer, maskedPageUrl } from './page-server.js';
import { SESSION_CLOSED } from './page-protocol.js';

const ASSETS = { 'vnc.js': 'console.log("vnc")', 'vnc.css': 'body{}', 'serial.js': 'console.log("serial")', 'serial.css': 'p{}' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real TCP console: greets with `hello`, keeps what it receives, can hang up. */
async function tcpConsole() {
  const received: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.write('hello');
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, received: () => Buffer.concat(received).toString(), sockets };
}

async function pageServer() {
  const server = await BrowserPageServer.start({ host: '127.0.0.1', port: 0, assets: ASSETS });
  cleanups.push(() => server.close(SESSION_CLOSED));
  return server;
}

/** What a browser keeps of a page after its one-time address: where it was sent, and the cookie. */
interface PageSession {
  pageUrl: string;
  cookie: string;
}

/** Opens a one-time address as a browser does: the redirect's target and the cookie it set. */
async function openPage(url: string): Promise<PageSession> {
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status).toBe(303);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0];
  return { pageUrl: new URL(answer.headers.get('location') ?? '', url).href, cookie };
}

/** GETs `url` with the session's cookie. */
function fetchWith(session: PageSession | undefined, url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: session ? { cookie: session.cookie } : {} });
}

/** Opens the page's websocket; resolves with it open, or with the HTTP status it was refused with. */
function dial(
  url: string,
  origin: string | undefined,
  session?: PageSession,
): Promise<{ socket: WebSocket; received: () => string } | { status: number }> {
  const socket = new WebSocket(url, {
    ...(origin === undefined ? {} : { origin }),
    ...(session ? { headers: { cookie: session.cookie } } : {}),
  });
  // What the console sends at once may arrive with the handshake: keep it from the start.
  const chunks: Buffer[] = [];
  socket.on('message', (data: Buffer) => chunks.push(data));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, received: () => Buffer.concat(chunks).toString() }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

function wsUrl(pageUrl: string): string {
  return `${pageUrl.replace(/^http/, 'ws')}ws`;
}

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('BrowserPageServer', () => {
  it("hands out a one-time address that opens the page once, within seconds, and sets the page's session cookie", async () => {
    const server = await pageServer();
    const { url, page } = server.publish({ title: 'vm-<a>', consoleType: 'vnc', host: '127.0.0.1', port: 1 });
    expect(url).toMatch(new RegExp(`^${server.origin}/open/[A-Za-z0-9_-]{22}$`));
    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/s/${page.id}/`);
    expect(answer.headers.get('set-cookie')).toMatch(
      new RegExp(`^vconsole_page=[A-Za-z0-9_-]{22}; Path=/s/${page.id}/; HttpOnly; SameSite=Lax$`),
    );
    // The address on the browser's command line is spent: whoever reads it from /proc is too late.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
    expect(maskedPageUrl(url)).toBe(`${server.origin}/open/***`);
  });

  it('closes the page for everyone when its one-time address is used twice (another local user raced the browser)', async () => {
    const tcp = await tcpConsole();
    const reused: string[] = [];
    const server = await BrowserPageServer.start({
      host: '127.0.0.1',
      port: 0,
      assets: ASSETS,
      onAddressReused: (page) => reused.push(page.title),
    });
    cleanups.push(() => server.close(SESSION_CLOSED));
    const { url } = server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: tcp.port });
    const first = await openPage(url);
    const dialled = await dial(wsUrl(first.pageUrl), server.origin, first);
    if (!('socket' in dialled)) throw new Error(`refused with ${dialled.status}`);
    const closed = once(dialled.socket, 'close');
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
    const [code, reason] = (await closed) as [number, Buffer];
    expect({ code, reason: reason.toString() }).toEqual({
      code: 4003,
      reason: "session closed: this page's one-time address was used twice, so another program had it too",
    });
    expect(reused).toEqual(['vm-a']);
    expect((await fetchWith(first, first.pageUrl)).status).toBe(403);
  });

  it('refuses a one-time address after its few seconds, and a HEAD does not spend it', async () => {
    const server = await pageServer();
    const { page } = server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: 1 });
    const expired = server.oneTimeUrl(page, -1);
    expect((await fetch(expired, { redirect: 'manual' })).status).toBe(403);
    const fresh = server.oneTimeUrl(page);
    expect((await fetch(fresh, { method: 'HEAD', redirect: 'manual' })).status).toBe(405);
    expect((await fetch(fresh, { redirect: 'manual' })).status).toBe(303);
  });

  it('serves a page titled with the VM name and its own script to the session that opened it', async () => {
    const server = await pageServer();
    const session = await openPage(server.publish({ title: 'vm-<a>', consoleType: 'vnc', host: '127.0.0.1', port: 1 }).url);
    const page = await fetchWith(session, session.pageUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<title>vm-&lt;a&gt;</title>');
    expect(html).toContain('src="vnc.js"');
    const script = await fetchWith(session, `${session.pageUrl}vnc.js`);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toBe(ASSETS['vnc.js']);
    expect(maskedPageUrl(session.pageUrl)).toBe(`${server.origin}/s/***/`);
  });

  it("refuses the page without its session's cookie or with another page's (403) and serves nothing on any other path (404)", async () => {
    const server = await pageServer();
    const session = await openPage(server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: 1 }).url);
    const other = await openPage(server.publish({ title: 'vm-b', consoleType: 'vnc', host: '127.0.0.1', port: 1 }).url);
    const url = session.pageUrl;
    expect((await fetchWith(undefined, url)).status).toBe(403);
    expect((await fetchWith(undefined, `${url}vnc.js`)).status).toBe(403);
    expect((await fetchWith(other, url)).status).toBe(403);
    expect((await fetchWith({ ...session, cookie: `vconsole_page=${'A'.repeat(22)}` }, url)).status).toBe(403);
    expect((await fetchWith(session, `${server.origin}/s/${'A'.repeat(22)}/`)).status).toBe(403);
    expect((await fetch(`${server.origin}/open/${'A'.repeat(22)}`)).status).toBe(403);
    for (const path of ['/', '/s/', '/open/', '/favicon.ico', '/vnc.js', '/ws'])
      expect((await fetch(`${server.origin}${path}`)).status, path).toBe(404);
    expect((await fetchWith(session, `${url}serial.js`)).status).toBe(404);
    expect((await fetchWith(session, `${url}../../vnc.js`)).status).toBe(404);
    expect((await fetchWith(session, `${url}nothing`)).status).toBe(404);
    expect((await fetchWith(session, url, { method: 'POST' })).status).toBe(404);
    expect(await dial(`${server.origin.replace('http', 'ws')}/other`, server.origin, session)).toEqual({ status: 404 });
  });

  it("refuses the websocket without the page's session, to a foreign Origin or none, and a page asked for under another host name", async () => {
    const tcp = await tcpConsole();
    const server = await pageServer();
    const session = await openPage(server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: tcp.port }).url);
    const url = session.pageUrl;
    expect(await dial(wsUrl(url), server.origin)).toEqual({ status: 403 });
    expect(await dial(wsUrl(url), server.origin, { ...session, cookie: `vconsole_page=${'A'.repeat(22)}` })).toEqual({ status: 403 });
    expect(await dial(wsUrl(url), 'http://evil.example', session)).toEqual({ status: 403 });
    expect(await dial(wsUrl(url), server.origin.replace('127.0.0.1', 'localhost'), session)).toEqual({ status: 403 });
    expect(await dial(wsUrl(url), undefined, session)).toEqual({ status: 403 });
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = net.connect(Number(new URL(url).port), '127.0.0.1', () => {
        req.write(
          `GET ${new URL(url).pathname} HTTP/1.1\r\nHost: attacker.example:${new URL(url).port}\r\nCookie: ${session.cookie}\r\nConnection: close\r\n\r\n`,
        );
      });
      let text = '';
      req.on('data', (chunk) => (text += chunk.toString()));
      req.on('end', () => resolve(Number(text.split(' ')[1])));
      req.on('error', reject);
    });
    expect(rebound).toBe(403);
    expect(tcp.sockets.size).toBe(0);
  });

  it('bridges bytes both ways between the page websocket and the console port', async () => {
    const tcp = await tcpConsole();
    const server = await pageServer();
    const session = await openPage(server.publish({ title: 'vm-a', consoleType: 'serial', host: '127.0.0.1', port: tcp.port }).url);
    const dialled = await dial(wsUrl(session.pageUrl), server.origin, session);
    if (!('socket' in dialled)) throw new Error(`refused with ${dialled.status}`);
    await waitFor(() => dialled.received() === 'hello');
    dialled.socket.send(Buffer.from('typed\r'));
    await waitFor(() => tcp.received() === 'typed\r');
    dialled.socket.close();
  });

  it('closes the page with "session closed" when withdrawn, after which its session and its addresses are refused', async () => {
    const tcp = await tcpConsole();
    const server = await pageServer();
    const { url, page } = server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: tcp.port });
    const session = await openPage(url);
    const unused = server.oneTimeUrl(page);
    const dialled = await dial(wsUrl(session.pageUrl), server.origin, session);
    if (!('socket' in dialled)) throw new Error(`refused with ${dialled.status}`);
    const closed = once(dialled.socket, 'close');
    server.withdraw(page, SESSION_CLOSED);
    const [code, reason] = (await closed) as [number, Buffer];
    expect({ code, reason: reason.toString() }).toEqual({ code: 4001, reason: 'session closed' });
    expect((await fetchWith(session, session.pageUrl)).status).toBe(403);
    expect((await fetch(unused, { redirect: 'manual' })).status).toBe(403);
    expect(await dial(wsUrl(session.pageUrl), server.origin, session)).toEqual({ status: 403 });
    await waitFor(() => tcp.sockets.size === 0);
  });

  it('closes the websocket with a code the page reconnects after when the console hangs up, and 502 while it refuses', async () => {
    const tcp = await tcpConsole();
    const server = await pageServer();
    const session = await openPage(server.publish({ title: 'vm-a', consoleType: 'vnc', host: '127.0.0.1', port: tcp.port }).url);
    const dialled = await dial(wsUrl(session.pageUrl), server.origin, session);
    if (!('socket' in dialled)) throw new Error(`refused with ${dialled.status}`);
    const closed = once(dialled.socket, 'close');
    await waitFor(() => tcp.sockets.size === 1);
    for (const socket of tcp.sockets) socket.destroy();
    const [code] = (await closed) as [number];
    expect(code).toBe(1001);

    const gone = await openPage(server.publish({ title: 'vm-b', consoleType: 'vnc', host: '127.0.0.1', port: await closedPort() }).url);
    expect(await dial(wsUrl(gone.pageUrl), server.origin, gone)).toEqual({ status: 502 });
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
