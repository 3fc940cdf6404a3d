// The VNC console behind the time-to-first-pixel figure: an RFB 3.8 server (security None)
// whose screen is one colour. Any viewer shows it as that colour whatever it scales or
// converts, so the bench can tell the console's picture on the X screen from everything else
// (the root window's black, the viewer's grey chrome) without decoding what a viewer drew.
import net, { type AddressInfo } from 'node:net';

/** 640x480, magenta: a colour no viewer chrome uses. */
export const SCREEN = { width: 640, height: 480, colour: [255, 0, 255] as [number, number, number] };

interface Format {
  bpp: number;
  bigEndian: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

const VERSION = Buffer.from('RFB 003.008\n');

/** A screen's size: SCREEN's by default, the many-consoles rows' 1280x800. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** Serves every client the same screen (of `screen`'s size); resolves once it listens on 127.0.0.1. */
export function startSolidConsole(screen: ScreenSize = SCREEN): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serve(socket, screen);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise<void>((r) => server.close(() => r()));
        },
      });
    });
  });
}

function serve(socket: net.Socket, screen: ScreenSize): void {
  let buffered: Buffer = Buffer.alloc(0);
  let stage = 'version';
  // The server's own format: 32 bpp, depth 24, little-endian, red at 16, green 8, blue 0.
  let format: Format = { bpp: 32, bigEndian: false, redMax: 255, greenMax: 255, blueMax: 255, redShift: 16, greenShift: 8, blueShift: 0 };
  socket.write(VERSION);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const used = step();
      if (used === 0) return;
      buffered = buffered.subarray(used);
    }
  });

  /** Handles one message at the head of `buffered`; returns the bytes it used, 0 when incomplete. */
  function step(): number {
    if (stage === 'version') {
      if (buffered.length < 12) return 0;
      socket.write(Buffer.from([1, 1])); // one security type: None
      stage = 'security';
      return 12;
    }
    if (stage === 'security') {
      if (buffered.length < 1) return 0;
      socket.write(Buffer.from([0, 0, 0, 0])); // SecurityResult OK
      stage = 'init';
      return 1;
    }
    if (stage === 'init') {
      if (buffered.length < 1) return 0; // ClientInit (shared flag)
      socket.write(serverInit(screen));
      stage = 'normal';
      return 1;
    }
    if (buffered.length === 0) return 0;
    const type = buffered[0];
    const sizes: Record<number, number | undefined> = { 0: 20, 3: 10, 4: 8, 5: 6 };
    if (type === 2) {
      if (buffered.length < 4) return 0;
      const n = buffered.readUInt16BE(2);
      return buffered.length < 4 + 4 * n ? 0 : 4 + 4 * n;
    }
    if (type === 6) {
      if (buffered.length < 8) return 0;
      const n = buffered.readUInt32BE(4);
      return buffered.length < 8 + n ? 0 : 8 + n;
    }
    const size = sizes[type];
    if (size === undefined) {
      socket.destroy();
      return 0;
    }
    if (buffered.length < size) return 0;
    if (type === 0) format = readFormat(buffered.subarray(4, 20));
    // Only a whole-screen (non-incremental) request gets pixels: the screen never changes.
    if (type === 3 && buffered[1] === 0) socket.write(wholeScreen(format, screen));
    return size;
  }
}

function serverInit(size: ScreenSize) {
  const name = Buffer.from('bench screen');
  const msg = Buffer.alloc(24 + name.length);
  msg.writeUInt16BE(size.width, 0);
  msg.writeUInt16BE(size.height, 2);
  Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]).copy(msg, 4);
  msg.writeUInt32BE(name.length, 20);
  name.copy(msg, 24);
  return msg;
}

function readFormat(b: Buffer): Format {
  return {
    bpp: b[0],
    bigEndian: b[2] !== 0,
    redMax: b.readUInt16BE(4),
    greenMax: b.readUInt16BE(6),
    blueMax: b.readUInt16BE(8),
    redShift: b[10],
    greenShift: b[11],
    blueShift: b[12],
  };
}

/** Pictures made so far, by format and size: a 1280x800 one takes a while to fill, and many viewers ask. */
const pictures = new Map<string, Buffer>();

/** One Raw rectangle covering the screen, in the viewer's pixel format. */
function wholeScreen(f: Format, size: ScreenSize): Buffer {
  const key = JSON.stringify([f, size.width, size.height]);
  const made = pictures.get(key) ?? paint(f, size);
  pictures.set(key, made);
  return made;
}

function paint(f: Format, size: ScreenSize): Buffer {
  const [r, g, b] = SCREEN.colour;
  const value =
    (Math.round((r * f.redMax) / 255) << f.redShift) |
    (Math.round((g * f.greenMax) / 255) << f.greenShift) |
    (Math.round((b * f.blueMax) / 255) << f.blueShift);
  const bytes = f.bpp / 8;
  const pixel = Buffer.alloc(bytes);
  if (bytes === 4 && f.bigEndian) pixel.writeUInt32BE(value >>> 0);
  else if (bytes === 4) pixel.writeUInt32LE(value >>> 0);
  else if (bytes === 2 && f.bigEndian) pixel.writeUInt16BE(value);
  else if (bytes === 2) pixel.writeUInt16LE(value);
  else pixel[0] = value;
  const count = size.width * size.height;
  const msg = Buffer.alloc(4 + 12 + count * bytes);
  msg.writeUInt16BE(1, 2); // FramebufferUpdate, one rectangle
  msg.writeUInt16BE(size.width, 8);
  msg.writeUInt16BE(size.height, 10);
  msg.writeInt32BE(0, 12); // Raw
  for (let i = 0; i < count; i++) pixel.copy(msg, 16 + i * bytes);
  return msg;
}
