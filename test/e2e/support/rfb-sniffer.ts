import net from 'node:net';

/** What one RFB session through the sniffer showed: what the client asked for and what the server sent. */
export interface SniffedSession {
  /** The client's last SetEncodings list, in its order of preference. */
  asked: number[];
  /** Bits per pixel and true-colour flag of the client's last SetPixelFormat (none: the server's own). */
  pixelFormat?: { bitsPerPixel: number; trueColour: boolean };
  /** The encoding of the first rectangle of pixels (not a pseudo-encoding) the server sent. */
  firstPixelEncoding?: number;
  /** Pseudo-encodings the server sent before or with that rectangle. */
  pseudoSent: number[];
  /** The security type the session used (1 none, 2 VNC authentication, ...). */
  securityType?: number;
  /** The server's SecurityResult: true accepted, false refused; undefined before (or without) one. */
  authenticated?: boolean;
  /** KeyEvents the client sent. */
  keyEvents: number;
}

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

/** Reads bytes as they arrive; `need(n)` says whether n are there, `take(n)` removes them. */
class Bytes {
  private buffer: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
  }
  has(n: number): boolean {
    return this.buffer.length >= n;
  }
  peek(n: number): Buffer {
    return this.buffer.subarray(0, n);
  }
  take(n: number): Buffer {
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }
}

/**
 * Follows one RFB session from both ends. Only what the matrix reports is parsed: the
 * handshake (to know where messages start), the client's SetPixelFormat and SetEncodings, and
 * the server's messages up to the first rectangle of pixels (whose payload length is not needed).
 * Anything it cannot follow simply stops the parsing; the bytes are relayed untouched either way.
 */
class SessionParser {
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
    const b = this.fromClient;
    if (!b.has(1)) return false;
    const type = b.peek(1)[0];
    const fixed: Record<number, number> = { 3: 10, 4: 8, 5: 6, 150: 10 };
    if (type === 0) {
      if (!b.has(20)) return false;
      const m = b.take(20);
      this.session.pixelFormat = { bitsPerPixel: m[4], trueColour: m[7] !== 0 };
      return true;
    }
    if (type === 2) {
      if (!b.has(4)) return false;
      const count = b.peek(4).readUInt16BE(2);
      if (!b.has(4 + 4 * count)) return false;
      const m = b.take(4 + 4 * count);
      this.session.asked = Array.from({ length: count }, (_, i) => m.readInt32BE(4 + 4 * i));
      return true;
    }
    if (fixed[type] !== undefined) {
      if (!b.has(fixed[type])) return false;
      if (type === 4 && b.peek(2)[1] === 1) this.session.keyEvents++;
      b.take(fixed[type]);
      return true;
    }
    if (type === 6) {
      if (!b.has(8)) return false;
      const length = Math.abs(b.peek(8).readInt32BE(4));
      if (!b.has(8 + length)) return false;
      b.take(8 + length);
      return true;
    }
    if (type === 248) {
      if (!b.has(9)) return false;
      const length = b.peek(9)[8];
      if (!b.has(9 + length)) return false;
      b.take(9 + length);
      return true;
    }
    if (type === 251) {
      if (!b.has(8)) return false;
      const screens = b.peek(8)[6];
      if (!b.has(8 + 16 * screens)) return false;
      b.take(8 + 16 * screens);
      return true;
    }
    if (type === 255) {
      // QEMU's messages: extended key event (subtype 0) is 12 bytes; audio (1) 4 or 10.
      if (!b.has(4)) return false;
      const sub = b.peek(2)[1];
      const length = sub === 0 ? 12 : b.peek(4).readUInt16BE(2) === 2 ? 10 : 4;
      if (!b.has(length)) return false;
      b.take(length);
      return true;
    }
    this.clientStage = 'lost';
    return false;
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
    const type = b.peek(1)[0];
    if (type === 0) return this.update();
    if (type === 2) {
      b.take(1);
      return true;
    }
    if (type === 1) {
      if (!b.has(6)) return false;
      const count = b.peek(6).readUInt16BE(4);
      if (!b.has(6 + 6 * count)) return false;
      b.take(6 + 6 * count);
      return true;
    }
    if (type === 3) {
      if (!b.has(8)) return false;
      const length = Math.abs(b.peek(8).readInt32BE(4));
      if (!b.has(8 + length)) return false;
      b.take(8 + length);
      return true;
    }
    if (type === 150) {
      b.take(1);
      return true;
    }
    if (type === 248) {
      if (!b.has(9)) return false;
      const length = b.peek(9)[8];
      if (!b.has(9 + length)) return false;
      b.take(9 + length);
      return true;
    }
    this.serverStage = 'done';
    return false;
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
    const bpp = (this.session.pixelFormat?.bitsPerPixel ?? this.serverBpp) / 8;
    let payload: number | undefined;
    if (encoding === -223 || encoding === -224 || encoding === -232 || encoding === -257 || encoding === -258 || encoding === -259)
      payload = 0;
    else if (encoding === -239) payload = width * height * bpp + Math.ceil(width / 8) * height;
    else if (encoding === -314) payload = 4 + width * height * 4;
    else if (encoding === -261) payload = 1;
    else if (encoding === -308) {
      if (!b.has(13)) return false;
      payload = 4 + 16 * b.peek(13)[12];
    } else if (encoding === -307) {
      if (!b.has(16)) return false;
      payload = 4 + b.peek(16).readUInt32BE(12);
    }
    if (payload === undefined) {
      this.serverStage = 'done';
      return false;
    }
    if (!b.has(12 + payload)) return false;
    b.take(12 + payload);
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
