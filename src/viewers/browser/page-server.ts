import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BROWSER_ONE_TIME_CODE_TTL_MS } from '../../limits.js';
import { consolePageHtml, contentSecurityPolicy } from './page-html.js';
import { ADDRESS_REUSED, CONSOLE_ENDED, type PageConsoleType } from './page-protocol.js';

/** 128 bits of randomness per page id, session and one-time code: unguessable, and short enough for a URL. */
const SECRET_BYTES = 16;
/** The cookie that holds a page's session secret, scoped to the page's own path. */
const SESSION_COOKIE = 'vconsole_page';
/** One-time codes a page may have outstanding; older ones are dropped (an address shown again and again). */
const MAX_CODES_PER_PAGE = 8;
/** Above this many bytes queued towards the page, stop reading the console until it drains. */
const HIGH_WATER_BYTES = 1 << 20;

/** One console a page is served for. */
interface PublishedConsole {
  /** The VM's name: the page's title. */
  title: string;
  consoleType: PageConsoleType;
  /** The session's local port, which the page's websocket is bridged to. */
  host: string;
  port: number;
}

export interface PublishedPage extends PublishedConsole {
  /** The page's path segment: `/s/<id>/`. Not on any command line, but kept unguessable too. */
  id: string;
  /** What the page's cookie holds: the only key to the page, its script and its websocket. */
  secret: Buffer;
  sockets: Set<WebSocket>;
  /** A websocket of this page reached its console at least once. */
  reached: boolean;
}

/** How an address appears in a URL's authority (IPv6 in brackets). */
function urlHost(host: string): string {
  return net.isIPv6(host) ? `[${host}]` : host;
}

/** A page URL with its secret hidden, for messages and logs. */
export function maskedPageUrl(url: string): string {
  return url.replace(/\/s\/[^/]+\//, '/s/***/').replace(/\/open\/[^/\s]+/, '/open/***');
}

interface OneTimeCode {
  page: PublishedPage;
  expiresAt: number;
  /** Used once already: kept till it expires, so that a second use is seen for what it is. */
  spent: boolean;
}

/** How codes are kept: by their hash, so a lookup's timing says nothing about a stored code. */
function codeKey(code: string): string {
  return createHash('sha256').update(code).digest('base64url');
}

/**
 * One local HTTP server for every browser viewer. A browser is handed a one-time address,
 * `/open/<code>`: the browser's command line is readable by every local user (/proc), so what
 * it carries works once, within BROWSER_ONE_TIME_CODE_TTL_MS. The first GET trades the code for
 * the page's session, an HttpOnly cookie scoped to the page's path `/s/<id>/`, and is sent on
 * there; then the code is dead. Under `/s/<id>/` are the page, its script and style, and the
 * websocket `/s/<id>/ws` bridged to the console's local TCP port: each needs the session's
 * cookie (compared in constant time), and the websocket also the server's own Origin and Host.
 * A used, expired or wrong code, a missing or wrong cookie or a withdrawn page get 403, any
 * other path 404, and nothing else is served. A code used twice closes its page (see redeem).
 */
export class BrowserPageServer {
  private readonly pages = new Set<PublishedPage>();
  private readonly codes = new Map<string, OneTimeCode>();
  private readonly websockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => (offered.has('binary') ? 'binary' : false),
  });
  /** `http://127.0.0.1:PORT`: what a page's Origin must be, and its Host. */
  readonly origin: string;
  private readonly hostHeader: string;

  private constructor(
    private readonly server: http.Server,
    host: string,
    port: number,
    private readonly assets: Readonly<Record<string, string>>,
    private readonly onAddressReused: (page: PublishedPage) => void,
  ) {
    this.hostHeader = `${urlHost(host)}:${port}`;
    this.origin = `http://${this.hostHeader}`;
    server.on('request', (req, res) => this.serve(req, res));
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  /**
   * Listens on `host:port` (port 0: any free one). Rejects when the address cannot be bound.
   * `onAddressReused` hears of a page closed because its one-time address was used twice.
   */
  static async start(options: {
    host: string;
    port: number;
    assets: Readonly<Record<string, string>>;
    onAddressReused?: (page: PublishedPage) => void;
  }): Promise<BrowserPageServer> {
    const server = http.createServer();
    server.listen(options.port, options.host);
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
    const address = server.address() as net.AddressInfo;
    return new BrowserPageServer(server, options.host, address.port, options.assets, options.onAddressReused ?? (() => undefined));
  }

  /**
   * Serves a page for `target`; returns it and a one-time address of it (see `oneTimeUrl`) for
   * the browser's command line.
   */
  publish(target: PublishedConsole): { url: string; page: PublishedPage } {
    const page: PublishedPage = {
      ...target,
      id: randomBytes(SECRET_BYTES).toString('base64url'),
      secret: randomBytes(SECRET_BYTES),
      sockets: new Set(),
      reached: false,
    };
    this.pages.add(page);
    return { url: this.oneTimeUrl(page), page };
  }

  /**
   * An address that opens `page` once, within `ttlMs`, in whichever browser uses it first.
   * Show it to the user or hand it to a browser; never log it.
   */
  oneTimeUrl(page: PublishedPage, ttlMs = BROWSER_ONE_TIME_CODE_TTL_MS): string {
    const now = Date.now();
    const ofPage: string[] = [];
    for (const [key, code] of this.codes) {
      if (code.expiresAt <= now) this.codes.delete(key);
      else if (code.page === page) ofPage.push(key);
    }
    for (const key of ofPage.slice(0, Math.max(0, ofPage.length - MAX_CODES_PER_PAGE + 1))) this.codes.delete(key);
    const code = randomBytes(SECRET_BYTES).toString('base64url');
    this.codes.set(codeKey(code), { page, expiresAt: now + ttlMs, spent: false });
    return `${this.origin}/open/${code}`;
  }

  /** Stops serving `page`: its secret stops working and its open websockets close with `close`. */
  withdraw(page: PublishedPage, close: { code: number; reason: string }): void {
    this.pages.delete(page);
    for (const [key, code] of this.codes) if (code.page === page) this.codes.delete(key);
    for (const socket of page.sockets) socket.close(close.code, close.reason);
  }

  /** Withdraws every page with `close` and stops listening; resolves once the port is closed. */
  async close(close: { code: number; reason: string }): Promise<void> {
    for (const page of [...this.pages]) this.withdraw(page, close);
    const closed = once(this.server, 'close');
    this.server.close();
    this.server.closeAllConnections();
    await closed;
  }

  /** The page of `/s/<id>/` when the request carries its session cookie (compared in constant time). */
  private pageFor(id: string, req: http.IncomingMessage): PublishedPage | undefined {
    let found: PublishedPage | undefined;
    for (const page of this.pages) if (page.id === id) found = page;
    if (!found) return undefined;
    const offered = sessionCookies(req.headers.cookie);
    let matches = false;
    for (const text of offered) {
      const candidate = Buffer.from(text, 'base64url');
      if (candidate.length === SECRET_BYTES && timingSafeEqual(candidate, found.secret)) matches = true;
    }
    return matches ? found : undefined;
  }

  /**
   * Takes the one-time `code`: its page, once, while it lives; undefined after. A second use
   * while it lives means two programs had it (another local user read the browser's command
   * line, and one of them came first): the page is closed for both, loudly, rather than left
   * to whoever was quicker.
   */
  private redeem(code: string): PublishedPage | undefined {
    const key = codeKey(code);
    const entry = this.codes.get(key);
    if (!entry || entry.expiresAt <= Date.now() || !this.pages.has(entry.page)) {
      this.codes.delete(key);
      return undefined;
    }
    if (!entry.spent) {
      entry.spent = true;
      return entry.page;
    }
    this.withdraw(entry.page, ADDRESS_REUSED);
    this.onAddressReused(entry.page);
    return undefined;
  }

  /** Splits `/s/<id>/<rest>` (or `/open/<code>`); undefined for any other path. */
  private route(req: http.IncomingMessage): { id: string; rest: string } | { code: string } | undefined {
    const path = (req.url ?? '').split('?')[0];
    const opening = /^\/open\/([A-Za-z0-9_-]+)$/.exec(path);
    if (opening) return { code: opening[1] };
    const match = /^\/s\/([^/]+)\/(.*)$/.exec(path);
    return match ? { id: match[1], rest: match[2] } : undefined;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const reply = (status: number, body = '', type = 'text/plain; charset=utf-8', extra: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'content-security-policy': contentSecurityPolicy(this.origin),
        ...extra,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    // A page reached under another name (DNS rebinding) is not ours to serve.
    if (req.headers.host !== this.hostHeader) return reply(403, 'forbidden\n');
    const route = this.route(req);
    if (!route || (req.method !== 'GET' && req.method !== 'HEAD')) return reply(404, 'not found\n');
    if ('code' in route) {
      // Only a browser's GET spends the code; a HEAD (a link preview, say) learns nothing.
      if (req.method !== 'GET') return reply(405, 'method not allowed\n');
      const opened = this.redeem(route.code);
      if (!opened)
        return reply(
          403,
          'forbidden: this console address works once and only for a few seconds; it was used already or has expired, and a page whose address was used twice is closed\n',
        );
      // Lax, not Strict: a browser that opens the address from another page (a file://, say) must still get its page.
      const cookie = `${SESSION_COOKIE}=${opened.secret.toString('base64url')}; Path=/s/${opened.id}/; HttpOnly; SameSite=Lax`;
      return reply(303, 'see the console page\n', 'text/plain; charset=utf-8', { location: `/s/${opened.id}/`, 'set-cookie': cookie });
    }
    const page = this.pageFor(route.id, req);
    if (!page) return reply(403, 'forbidden: this console page is closed, or this browser was not the one it was opened in\n');
    if (route.rest === '') return reply(200, consolePageHtml(page.title, page.consoleType), 'text/html; charset=utf-8');
    const asset = this.assets[route.rest];
    if (asset === undefined || !route.rest.startsWith(`${page.consoleType}.`)) return reply(404, 'not found\n');
    return reply(200, asset, route.rest.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    socket.on('error', () => socket.destroy());
    const route = this.route(req);
    if (!route || 'code' in route || route.rest !== 'ws') return refuse(404, 'Not Found');
    const page = this.pageFor(route.id, req);
    // Another site's page in the same browser may know nothing, but it must not get that far.
    if (!page || req.headers.origin !== this.origin || req.headers.host !== this.hostHeader) return refuse(403, 'Forbidden');
    const upstream = net.connect(page.port, page.host);
    const failed = () => refuse(502, 'Bad Gateway');
    upstream.once('error', failed);
    upstream.once('connect', () => {
      upstream.off('error', failed);
      if (!this.pages.has(page)) {
        upstream.destroy();
        return refuse(403, 'Forbidden');
      }
      this.websockets.handleUpgrade(req, socket, head, (websocket) => this.bridge(page, websocket, upstream));
    });
  }

  /** Bytes both ways between the page's websocket and the upstream, with backpressure both ways. */
  private bridge(page: PublishedPage, websocket: WebSocket, upstream: net.Socket): void {
    page.sockets.add(websocket);
    page.reached = true;
    upstream.setNoDelay(true);
    upstream.on('data', (chunk: Buffer) => {
      websocket.send(chunk, () => {
        if (upstream.isPaused() && websocket.bufferedAmount < HIGH_WATER_BYTES) upstream.resume();
      });
      if (websocket.bufferedAmount >= HIGH_WATER_BYTES) upstream.pause();
    });
    websocket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary && data.length === 0) return;
      if (!upstream.write(data)) {
        websocket.pause();
        upstream.once('drain', () => websocket.resume());
      }
    });
    const consoleEnded = () => {
      if (websocket.readyState === websocket.OPEN || websocket.readyState === websocket.CONNECTING) {
        websocket.close(CONSOLE_ENDED.code, CONSOLE_ENDED.reason);
      }
    };
    upstream.on('end', consoleEnded);
    upstream.on('close', consoleEnded);
    upstream.on('error', () => undefined);
    websocket.on('error', () => undefined);
    websocket.on('close', () => {
      page.sockets.delete(websocket);
      upstream.destroy();
    });
  }
}

/** The values of every session cookie in a Cookie header (pages on other paths may add theirs). */
function sessionCookies(header: string | undefined): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === SESSION_COOKIE) values.push(part.slice(at + 1).trim());
  }
  return values;
}
