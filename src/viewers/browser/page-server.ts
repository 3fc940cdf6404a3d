import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { consolePageHtml, contentSecurityPolicy } from './page-html.js';
import { CONSOLE_ENDED, type PageConsoleType } from './page-protocol.js';

/** 128 bits of randomness per page: unguessable, and short enough for a URL. */
const SECRET_BYTES = 16;
/** Above this many bytes queued towards the page, stop reading the console until it drains. */
const HIGH_WATER_BYTES = 1 << 20;

/** One console a page is served for. */
export interface PublishedConsole {
  /** The VM's name: the page's title. */
  title: string;
  consoleType: PageConsoleType;
  /** The session's local port, which the page's websocket is bridged to. */
  host: string;
  port: number;
}

export interface PublishedPage extends PublishedConsole {
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
  return url.replace(/\/s\/[^/]+\//, '/s/***/');
}

/**
 * One local HTTP server for every browser viewer. Each published console gets a page under
 * `/s/<secret>/`: the page, its script and style, and the websocket `/s/<secret>/ws` which is
 * bridged to the console's local TCP port. The websocket is accepted only with the right secret
 * and the server's own Origin; a wrong or withdrawn secret gets 403, any other path 404, and
 * nothing else is served.
 */
export class BrowserPageServer {
  private readonly pages = new Set<PublishedPage>();
  private readonly websockets = new WebSocketServer({ noServer: true, handleProtocols: (offered) => (offered.has('binary') ? 'binary' : false) });
  /** `http://127.0.0.1:PORT`: what a page's Origin must be, and its Host. */
  readonly origin: string;
  private readonly hostHeader: string;

  private constructor(
    private readonly server: http.Server,
    host: string,
    port: number,
    private readonly assets: Readonly<Record<string, string>>,
  ) {
    this.hostHeader = `${urlHost(host)}:${port}`;
    this.origin = `http://${this.hostHeader}`;
    server.on('request', (req, res) => this.serve(req, res));
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  /** Listens on `host:port` (port 0: any free one). Rejects when the address cannot be bound. */
  static async start(options: { host: string; port: number; assets: Readonly<Record<string, string>> }): Promise<BrowserPageServer> {
    const server = http.createServer();
    server.listen(options.port, options.host);
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
    const address = server.address() as net.AddressInfo;
    return new BrowserPageServer(server, options.host, address.port, options.assets);
  }

  /** Serves a page for `target` and returns its URL, secret included: show it to the user only. */
  publish(target: PublishedConsole): { url: string; page: PublishedPage } {
    const secret = randomBytes(SECRET_BYTES);
    const page: PublishedPage = { ...target, secret, sockets: new Set(), reached: false };
    this.pages.add(page);
    return { url: `${this.origin}/s/${secret.toString('base64url')}/`, page };
  }

  /** Stops serving `page`: its secret stops working and its open websockets close with `close`. */
  withdraw(page: PublishedPage, close: { code: number; reason: string }): void {
    this.pages.delete(page);
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

  /** The page whose secret is `text`, compared in constant time; undefined for any other text. */
  private pageFor(text: string): PublishedPage | undefined {
    const candidate = Buffer.from(text, 'base64url');
    if (candidate.length !== SECRET_BYTES || candidate.toString('base64url') !== text) return undefined;
    let found: PublishedPage | undefined;
    for (const page of this.pages) if (timingSafeEqual(page.secret, candidate)) found = page;
    return found;
  }

  /** Splits `/s/<secret>/<rest>`; undefined for any other path. */
  private route(req: http.IncomingMessage): { secret: string; rest: string } | undefined {
    const path = (req.url ?? '').split('?')[0];
    const match = /^\/s\/([^/]+)\/(.*)$/.exec(path);
    return match ? { secret: match[1], rest: match[2] } : undefined;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const reply = (status: number, body = '', type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'content-security-policy': contentSecurityPolicy(this.origin),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    // A page reached under another name (DNS rebinding) is not ours to serve.
    if (req.headers.host !== this.hostHeader) return reply(403, 'forbidden\n');
    const route = this.route(req);
    if (!route || (req.method !== 'GET' && req.method !== 'HEAD')) return reply(404, 'not found\n');
    const page = this.pageFor(route.secret);
    if (!page) return reply(403, 'forbidden: this console page is closed or its address is wrong\n');
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
    if (!route || route.rest !== 'ws') return refuse(404, 'Not Found');
    const page = this.pageFor(route.secret);
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
