import net from 'node:net';
import { Bytes, CLIENT_MESSAGES, PSEUDO_RECTS, SERVER_MESSAGES, stepMessage, type SniffedSession } from './rfb-messages.js';

export type { SniffedSession } from './rfb-messages.js';

/** Encodings by number, for the matrix's table. */
export const ENCODING_NAMES: Readonly<Record<number, string>> = {
  0: 'raw',
  1: 'copyrect',
  2: 'rre',
  4: 'corre',
  5: 'hextile',
  6: 'zlib',
  7: 'tight',
  8: 'zlibhex',
  16: 'zrle',
  21: 'jpeg',
  [-223]: 'desktop-size',
  [-224]: 'last-rect',
  [-232]: 'pointer-pos',
  [-239]: 'cursor',
  [-240]: 'x-cursor',
  [-257]: 'qemu-pointer-motion',
  [-258]: 'qemu-ext-key',
  [-259]: 'qemu-audio',
  [-261]: 'qemu-led',
  [-307]: 'desktop-name',
  [-308]: 'ext-desktop-size',
  [-309]: 'xvp',
  [-312]: 'fence',
  [-313]: 'continuous-updates',
  [-314]: 'cursor-with-alpha',
  [0xc0a1e5ce | 0]: 'ext-clipboard',
  [0x574d5664]: 'vmware-cursor',
  [0x574d5666]: 'vmware-cursor-state',
  [0x574d5668]: 'vmware-led',
};

/** An encoding's name: `tight`, `jpeg-quality-5`, `compress-level-9`, or the number. */
export function encodingName(encoding: number): string {
  if (encoding >= -32 && encoding <= -23) return `jpeg-quality-${encoding + 32}`;
  if (encoding >= -256 && encoding <= -247) return `compress-level-${encoding + 256}`;
  if (encoding >= -512 && encoding <= -412) return `jpeg-fine-${encoding + 512}`;
  if (encoding >= -768 && encoding <= -763) return `jpeg-subsample-${encoding + 768}`;
  return ENCODING_NAMES[encoding] ?? String(encoding);
}

/**
 * Follows one RFB session from both ends. Only what the matrix reports is parsed: the
 * handshake (to know where messages start), the client's SetPixelFormat and SetEncodings, and
 * the server's messages up to the first rectangle of pixels (whose payload length is not needed).
 * Anything it cannot follow simply stops the parsing; the bytes are relayed untouched either way.
 */
export class SessionParser {
  readonly session: SniffedSession = { asked: [], pseudoSent: [], keyEvents: 0 };
  private readonly fromClient = new Bytes();
  private readonly fromServer = new Bytes();
  private clientStage: 'version' | 'security' | 'auth' | 'init' | 'messages' | 'lost' = 'version';
  private serverStage: 'version' | 'security' | 'challenge' | 'result' | 'init' | 'messages' | 'done' = 'version';
  private minor = 8;
  private serverBpp = 32;

  client(chunk: Buffer): void {
    this.fromClient.push(chunk);
    for (;;) if (!this.clientStep()) return;
  }

  server(chunk: Buffer): void {
    this.fromServer.push(chunk);
    for (;;) if (!this.serverStep()) return;
  }

  private clientStep(): boolean {
    const b = this.fromClient;
    switch (this.clientStage) {
      case 'version':
        if (!b.has(12)) return false;
        this.minor = Number(/RFB \d{3}\.(\d{3})/.exec(b.take(12).toString('latin1'))?.[1] ?? 8);
        this.clientStage = this.minor >= 7 ? 'security' : 'auth';
        return true;
      case 'security':
        if (!b.has(1)) return false;
        this.session.securityType = b.take(1)[0];
        this.clientStage = 'auth';
        return true;
      case 'auth':
        // RFB 3.3: the server chose the type; wait until the server stream tells which.
        if (this.session.securityType === undefined) return false;
        if (this.session.securityType === 2) {
          if (!b.has(16)) return false;
          b.take(16);
        } else if (this.session.securityType !== 1) {
          this.clientStage = 'lost';
          return false;
        }
        this.clientStage = 'init';
        return true;
      case 'init':
        if (!b.has(1)) return false;
        b.take(1);
        this.clientStage = 'messages';
        return true;
      case 'messages':
        return this.clientMessage();
      case 'lost':
        return false;
    }
  }

  private clientMessage(): boolean {
    const step = stepMessage(this.fromClient, CLIENT_MESSAGES, this.session);
    if (step === 'unknown') this.clientStage = 'lost';
    return step === 'taken';
  }

  private serverStep(): boolean {
    const b = this.fromServer;
    switch (this.serverStage) {
      case 'version':
        if (!b.has(12)) return false;
        b.take(12);
        this.serverStage = 'security';
        return true;
      case 'security':
        if (this.minor >= 7) {
          if (!b.has(1)) return false;
          const count = b.peek(1)[0];
          if (!b.has(1 + count)) return false;
          b.take(1 + count);
          // The client's choice decides what follows; it arrives on the other stream.
          this.serverStage = 'challenge';
          return true;
        }
        if (!b.has(4)) return false;
        this.session.securityType = b.take(4).readUInt32BE(0);
        this.client(Buffer.alloc(0));
        this.serverStage = 'challenge';
        return true;
      case 'challenge':
        if (this.session.securityType === undefined) return false;
        if (this.session.securityType === 2) {
          if (!b.has(16)) return false;
          b.take(16);
        } else if (this.session.securityType !== 1) {
          this.serverStage = 'done';
          return false;
        }
        this.serverStage = this.session.securityType === 1 && this.minor < 8 ? 'init' : 'result';
        return true;
      case 'result':
        if (!b.has(4)) return false;
        this.session.authenticated = b.take(4).readUInt32BE(0) === 0;
        if (!this.session.authenticated) {
          this.serverStage = 'done';
          return false;
        }
        this.serverStage = 'init';
        return true;
      case 'init': {
        if (!b.has(24)) return false;
        const nameLength = b.peek(24).readUInt32BE(20);
        if (!b.has(24 + nameLength)) return false;
        this.serverBpp = b.take(24 + nameLength)[4];
        this.serverStage = 'messages';
        return true;
      }
      case 'messages':
        return this.serverMessage();
      case 'done':
        return false;
    }
  }

  private serverMessage(): boolean {
    const b = this.fromServer;
    if (!b.has(1)) return false;
    // Inside an update the next bytes are a rectangle's header, whatever its first byte.
    if (this.pendingRects > 0 || b.peek(1)[0] === 0) return this.update();
    const step = stepMessage(b, SERVER_MESSAGES, this.session);
    if (step === 'unknown') this.serverStage = 'done';
    return step === 'taken';
  }

  /** FramebufferUpdate: pseudo-rectangles are skipped by their known sizes until a rectangle of pixels. */
  private pendingRects = 0;
  private update(): boolean {
    const b = this.fromServer;
    if (this.pendingRects === 0) {
      if (!b.has(4)) return false;
      this.pendingRects = b.take(4).readUInt16BE(2);
      if (this.pendingRects === 0) return true;
    }
    if (!b.has(12)) return false;
    const header = b.peek(12);
    const width = header.readUInt16BE(4);
    const height = header.readUInt16BE(6);
    const encoding = header.readInt32BE(8);
    if (encoding >= 0) {
      this.session.firstPixelEncoding = encoding;
      this.serverStage = 'done';
      return false;
    }
    const rectLength = PSEUDO_RECTS[encoding];
    if (rectLength === undefined) {
      this.serverStage = 'done';
      return false;
    }
    const length = rectLength(b, { width, height, bytesPerPixel: (this.session.pixelFormat?.bitsPerPixel ?? this.serverBpp) / 8 });
    if (length === undefined || !b.has(length)) return false;
    b.take(length);
    this.session.pseudoSent.push(encoding);
    this.pendingRects--;
    if (encoding === -224) this.pendingRects = 0;
    return true;
  }
}

/** A TCP relay on a free loopback port in front of `target` that records every session through it. */
export interface RfbSniffer {
  port: number;
  sessions: SniffedSession[];
  close(): Promise<void>;
}

export async function startRfbSniffer(target: net.NetConnectOpts): Promise<RfbSniffer> {
  const sessions: SniffedSession[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const parser = new SessionParser();
    sessions.push(parser.session);
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      parser.client(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      parser.server(chunk);
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
