import net from 'node:net';
import type { Duplex } from 'node:stream';
import { VconsoleError, describeError } from '../../errors.js';
import { DemoDesktop, type ScreenListener } from './desktop.js';
import { clip, type Rect } from '../wire/geometry.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { serveClient } from '../server/rfb-server.js';

interface DemoRfbServerOptions {
  name: string;
  host?: string;
  port?: number;
  /** Listen on this unix socket instead of TCP. */
  path?: string;
  width?: number;
  height?: number;
}

export interface DemoRfbServer {
  /** The host listened on, or the unix socket path. */
  address: string;
  /** The TCP port, 0 for a unix socket. */
  port: number;
  path?: string;
  close(): Promise<void>;
  /** Clients connected now. */
  readonly clients: number;
  /** True while the once-a-second clock timer runs (only while a client is connected). */
  readonly clockRunning: boolean;
}

/**
 * The demo desktop as the Framebuffer the hub's RFB server reads. While any client is
 * connected the desktop runs (its clock ticks) and every repainted area is copied over.
 */
class DemoFramebuffer {
  readonly framebuffer: Framebuffer;
  private clients = 0;
  private readonly onChange: ScreenListener = (changed) => {
    for (const rect of changed) {
      this.copy(rect);
      this.framebuffer.damage(rect);
    }
  };

  constructor(private readonly desktop: DemoDesktop) {
    const { width, height, name } = desktop.screen;
    this.framebuffer = new Framebuffer(width, height, name);
  }

  private copy(rect: Rect): void {
    const { pixels, width } = this.desktop.screen;
    const area = clip(rect, width, this.desktop.screen.height);
    for (let row = area.y; row < area.y + area.h; row += 1) {
      const start = (row * width + area.x) * 4;
      pixels.copy(this.framebuffer.pixels, start, start, start + area.w * 4);
    }
  }

  /** One client on `stream`; its keys and clicks change the screen every client sees. */
  serve(stream: Duplex): void {
    if (this.clients++ === 0) {
      this.desktop.attach(this.onChange);
      const { width, height } = this.desktop.screen;
      this.copy({ x: 0, y: 0, w: width, h: height });
    }
    const session = serveClient(stream, {
      framebuffer: this.framebuffer,
      input: {
        key: (down, keysym) => this.desktop.change((screen) => screen.keyEvent(down, keysym)),
        pointer: (buttons, x, y) => this.desktop.change((screen) => screen.pointerEvent(buttons, x, y)),
        clipboard: () => undefined, // the demo screen has nowhere to paste
      },
    });
    session.once('close', () => {
      if (--this.clients === 0) this.desktop.detach(this.onChange);
    });
  }
}

/** A desktop of the asked size (default 800x600); throws for sizes outside 16..8192. */
function createDesktop(options: { name: string; width?: number; height?: number }): DemoDesktop {
  const width = options.width ?? 800;
  const height = options.height ?? 600;
  for (const value of [width, height]) {
    if (!Number.isInteger(value) || value < 16 || value > 8192) {
      throw new VconsoleError(`demo console size ${width}x${height} is not supported`, { hint: 'use 16..8192 pixels per side' });
    }
  }
  return new DemoDesktop(options.name, width, height);
}

/** Serves one RFB session on any byte stream (socket, websocket stream), on its own screen. */
export function serveDemoRfb(stream: Duplex, options: { name: string; width?: number; height?: number }): void {
  new DemoFramebuffer(createDesktop(options)).serve(stream);
}

/** Listens on TCP (`host`, `port`, default 127.0.0.1 and an OS-chosen port) or on a unix `path`. */
export async function startDemoRfbServer(options: DemoRfbServerOptions): Promise<DemoRfbServer> {
  const desktop = createDesktop(options);
  const shared = new DemoFramebuffer(desktop);
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    shared.serve(socket);
  });
  const where = options.path ?? `${host}:${options.port ?? 0}`;
  return new Promise((resolve, reject) => {
    server.once('error', (err) => {
      reject(new VconsoleError(`demo console ${options.name} cannot listen on ${where}: ${describeError(err)}`, { cause: err }));
    });
    const listening = () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      const bound = server.address();
      const port = typeof bound === 'object' && bound ? bound.port : 0;
      resolve({
        address: options.path ?? host,
        port,
        path: options.path,
        get clients() {
          return sockets.size;
        },
        get clockRunning() {
          return desktop.clockRunning;
        },
        async close() {
          const closed = new Promise<void>((done) => server.close(() => done()));
          const sessionsEnded = [...sockets].map(
            (socket) =>
              new Promise<void>((done) => {
                socket.once('close', () => done());
                socket.destroy();
              }),
          );
          await Promise.all([closed, ...sessionsEnded]);
        },
      });
    };
    if (options.path) server.listen(options.path, listening);
    else server.listen(options.port ?? 0, host, listening);
  });
}
