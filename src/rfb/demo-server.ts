import net from 'node:net';
import type { Duplex } from 'node:stream';
import { VconsoleError, describeError } from '../errors.js';
import { DemoDesktop, type ScreenListener } from './demo-desktop.js';
import { clip, intersect, union, type Rect } from './demo-screen.js';
import {
  NATIVE_FORMAT, RfbProtocolError, colourMapEntries, encodeFramebufferUpdate, encodeServerInit,
  negotiateVersion, parseClientMessage, serverSideFormat, type ClientMessage, type PixelFormat,
} from './rfb-wire.js';

export interface DemoRfbServerOptions {
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

const MAX_DIRTY_RECTS = 16;

/** One client's RFB session: handshake, then messages parsed incrementally from `buffer`. */
class RfbSession {
  private buffer: Buffer = Buffer.alloc(0);
  private phase: 'version' | 'security' | 'clientInit' | 'normal' = 'version';
  private version: '3.3' | '3.7' | '3.8' = '3.8';
  private format: PixelFormat = NATIVE_FORMAT;
  /** Bytes of a ClientCutText payload still to drop. */
  private skipping = 0;
  /** Areas repainted since this client last got them. */
  private dirty: Rect[] = [];
  /** The union of the areas of update requests not answered yet. */
  private requested: Rect | undefined;
  private waitingForDrain = false;
  private readonly onScreenChange: ScreenListener = (changed) => {
    for (const rect of changed) this.markDirty(rect);
    this.sendUpdateIfDue();
  };

  constructor(private readonly stream: Duplex, private readonly desktop: DemoDesktop) {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('error', () => stream.destroy());
    stream.on('end', () => stream.end());
    stream.on('close', () => this.desktop.detach(this.onScreenChange));
    stream.write('RFB 003.008\n');
  }

  private receive(chunk: Buffer): void {
    if (this.stream.destroyed || this.stream.writableEnded) return;
    try {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      let offset = this.skipCutText(0);
      for (let used = this.step(offset); used > 0 && !this.stream.destroyed; used = this.step(offset)) {
        offset = this.skipCutText(offset + used);
      }
      this.buffer = this.buffer.subarray(offset);
    } catch (err) {
      // A client that breaks the protocol loses its own connection, nobody else's.
      this.stream.destroy(err instanceof RfbProtocolError ? undefined : (err as Error));
    }
  }

  /** Drops what is buffered at `offset` of a ClientCutText payload still due; returns the new offset. */
  private skipCutText(offset: number): number {
    const dropped = Math.min(this.skipping, this.buffer.length - offset);
    this.skipping -= dropped;
    return offset + dropped;
  }

  /** Handles one message at `offset`; returns the bytes it used, 0 when more must arrive. */
  private step(offset: number): number {
    const available = this.buffer.length - offset;
    switch (this.phase) {
      case 'version':
        if (available < 12) return 0;
        this.version = negotiateVersion(this.buffer.subarray(offset, offset + 12));
        if (this.version === '3.3') {
          this.stream.write(u32(1)); // the server picks security type None
          this.phase = 'clientInit';
        } else {
          this.stream.write(Buffer.from([1, 1])); // one type offered: None
          this.phase = 'security';
        }
        return 12;
      case 'security':
        if (available < 1) return 0;
        if (this.buffer[offset] !== 1) {
          if (this.version === '3.8') this.stream.write(Buffer.concat([u32(1), lengthPrefixed('only security type None is offered')]));
          this.stream.end();
          return 0;
        }
        if (this.version === '3.8') this.stream.write(u32(0));
        this.phase = 'clientInit';
        return 1;
      case 'clientInit': {
        if (available < 1) return 0;
        // The shared flag is ignored: every viewer of a demo VM shares its one screen.
        const { width, height, name } = this.desktop.screen;
        this.stream.write(encodeServerInit(width, height, name));
        this.phase = 'normal';
        this.desktop.attach(this.onScreenChange);
        return 1;
      }
      case 'normal': {
        const parsed = parseClientMessage(this.buffer, offset);
        if (!parsed) return 0;
        this.handle(parsed.message);
        return parsed.size;
      }
    }
  }

  private handle(message: ClientMessage): void {
    switch (message.type) {
      case 'setPixelFormat':
        this.format = serverSideFormat(message.format);
        if (!message.format.trueColour) this.stream.write(colourMapEntries());
        break;
      case 'setEncodings':
        break; // every update is Raw, which all clients must accept
      case 'updateRequest': {
        const { width, height } = this.desktop.screen;
        const area = clip(message.rect, width, height);
        if (area.w === 0 || area.h === 0) break;
        if (!message.incremental) this.markDirty(area);
        this.requested = this.requested ? union(this.requested, area) : area;
        this.sendUpdateIfDue();
        break;
      }
      case 'key':
        this.desktop.change((screen) => screen.keyEvent(message.down, message.keysym));
        break;
      case 'pointer':
        this.desktop.change((screen) => screen.pointerEvent(message.buttons, message.x, message.y));
        break;
      case 'cutText':
        this.skipping = message.length;
        break;
    }
  }

  private markDirty(rect: Rect): void {
    let merged = rect;
    const kept: Rect[] = [];
    for (const other of this.dirty) {
      if (intersect(merged, other)) merged = union(merged, other);
      else kept.push(other);
    }
    kept.push(merged);
    this.dirty = kept.length > MAX_DIRTY_RECTS ? [kept.reduce(union)] : kept;
  }

  /**
   * Answers the pending request when part of its area changed. At most one update is written
   * per request, and none while the stream's buffer is full, so a client that stops reading
   * costs one frame of memory, not a queue.
   */
  private sendUpdateIfDue(): void {
    const area = this.requested;
    if (!area || this.waitingForDrain || this.stream.destroyed) return;
    const rects = this.dirty.map((rect) => intersect(rect, area)).filter((rect): rect is Rect => rect !== undefined);
    if (rects.length === 0) return;
    // Parts outside the requested area stay dirty; re-sending their overlap later is harmless.
    this.dirty = this.dirty.filter((rect) => !contains(area, rect));
    this.requested = undefined;
    const { pixels, width } = this.desktop.screen;
    if (!this.stream.write(encodeFramebufferUpdate(rects, pixels, width, this.format))) {
      this.waitingForDrain = true;
      this.stream.once('drain', () => {
        this.waitingForDrain = false;
        this.sendUpdateIfDue();
      });
    }
  }
}

function contains(outer: Rect, inner: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(bytes.length), bytes]);
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
  new RfbSession(stream, createDesktop(options));
}

/** Listens on TCP (`host`, `port`, default 127.0.0.1 and an OS-chosen port) or on a unix `path`. */
export async function startDemoRfbServer(options: DemoRfbServerOptions): Promise<DemoRfbServer> {
  const desktop = createDesktop(options);
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    new RfbSession(socket, desktop);
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
          const sessionsEnded = [...sockets].map((socket) => new Promise<void>((done) => {
            socket.once('close', () => done());
            socket.destroy();
          }));
          await Promise.all([closed, ...sessionsEnded]);
        },
      });
    };
    if (options.path) server.listen(options.path, listening);
    else server.listen(options.port ?? 0, host, listening);
  });
}
