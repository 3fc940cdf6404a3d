// A stand-in VNC console for the hub benchmarks: an RFB 3.8 server (security None, 32 bpp) with
// a 1920x1080 screen, in its own process. It sends ZRLE to a client that lists ZRLE before Raw
// (as vconsole's hub does, and as QEMU answers it), else Raw. Its ZRLE tiles are raw tiles in
// stored (uncompressed) deflate blocks: a valid zlib stream that costs this process nothing.
// `node --import tsx rfb-console.ts busy|quiet [raw] [listen=N]` prints {"port":N} once it listens; `raw`: Raw only,
// whatever the client lists (a whole screen then arrives as one Raw rectangle, in TCP-sized parts);
// `listen=N`: the same console on N ports ({"port":FIRST,"ports":[...]}), N consoles for a proxy
// that serves each distinct target once.
//
//   busy   the whole screen changes between any two update requests: every request is answered
//          at once with a full 1920x1080 Raw frame (one of FRAMES precomputed pictures, a band
//          that moves), like a video playing full screen
//   quiet  nothing changes by itself: an incremental request waits; a key press (down) repaints
//          a 16x16 square (its colour from the keysym) and answers the waiting request with it
//
// Every connection gets the same picture, whatever pixel format it asks for (the benchmark
// viewers and vconsole's hub both ask for this server's own format).
import net, { type AddressInfo } from 'node:net';

const WIDTH = 1920;
const HEIGHT = 1080;
const SQUARE = 16;
const FRAMES = 8;
const mode = process.argv[2] ?? 'busy';
const rawOnly = process.argv.slice(3).includes('raw');
const listeners = Number(process.argv.find((a) => a.startsWith('listen='))?.slice('listen='.length) ?? 1);

/** 32 bpp, depth 24, little-endian, true colour, red at bit 16: what QEMU offers. */
function serverInit() {
  const name = Buffer.from(`bench-${mode}`);
  const out = Buffer.alloc(24 + name.length);
  out.writeUInt16BE(WIDTH, 0);
  out.writeUInt16BE(HEIGHT, 2);
  Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0]).copy(out, 4);
  out.writeUInt32BE(name.length, 20);
  name.copy(out, 24);
  return out;
}

function updateHeader(rects: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt16BE(rects, 2);
  return out;
}

const ZRLE = 16;
const TILE = 64;
const STORED_BLOCK = 65535;

function rectHeader(x: number, y: number, w: number, h: number, encoding = 0): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(x, 0);
  out.writeUInt16BE(y, 2);
  out.writeUInt16BE(w, 4);
  out.writeUInt16BE(h, 6);
  out.writeInt32BE(encoding, 8);
  return out;
}

/**
 * A picture in both encodings: `raw` is a whole Raw update, `stored` the ZRLE tile data in
 * stored deflate blocks (the length and zlib header are added per connection).
 */
interface Picture {
  raw: Buffer;
  stored: Buffer;
  rect: [number, number, number, number];
}

function picture(pixels: Buffer, x: number, y: number, w: number, h: number): Picture {
  return {
    raw: Buffer.concat([updateHeader(1), rectHeader(x, y, w, h), pixels]),
    stored: storedBlocks(zrleTiles(pixels, w, h)),
    rect: [x, y, w, h],
  };
}

/** Full-screen pictures, made once: a grey gradient with a bright band at a different height in each. */
const frames = Array.from({ length: FRAMES }, (_, f) => {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 4);
  const band = Math.floor((f * HEIGHT) / FRAMES);
  for (let y = 0; y < HEIGHT; y++) {
    const inBand = y >= band && y < band + HEIGHT / FRAMES;
    for (let x = 0; x < WIDTH; x++) {
      const v = (x + y + f * 32) & 0xff;
      pixels.writeUInt32LE(inBand ? 0xff0000 | v : (v << 16) | (v << 8) | v, (y * WIDTH + x) * 4);
    }
  }
  return picture(pixels, 0, 0, WIDTH, HEIGHT);
});
/** Full-screen Raw pixels (B G R X) as ZRLE tile data: raw tiles of 3-byte CPIXELs. */
function zrleTiles(raw: Buffer, width: number, height: number): Buffer {
  const parts: Buffer[] = [];
  for (let ty = 0; ty < height; ty += TILE) {
    for (let tx = 0; tx < width; tx += TILE) {
      const w = Math.min(TILE, width - tx);
      const h = Math.min(TILE, height - ty);
      const tile = Buffer.alloc(1 + w * h * 3);
      let at = 1;
      for (let y = ty; y < ty + h; y++) {
        for (let x = tx; x < tx + w; x++) {
          raw.copy(tile, at, (y * width + x) * 4, (y * width + x) * 4 + 3);
          at += 3;
        }
      }
      parts.push(tile);
    }
  }
  return Buffer.concat(parts);
}

/** `data` as non-final stored deflate blocks (each byte-aligned: no flush needed between updates). */
function storedBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += STORED_BLOCK) {
    const chunk = data.subarray(at, at + STORED_BLOCK);
    const head = Buffer.alloc(5);
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    parts.push(head, chunk);
  }
  return Buffer.concat(parts);
}

/** The quiet screen: mid grey (built on first use). */
let still: Picture | undefined;

function square(keysym: number): Picture {
  const pixels = Buffer.alloc(SQUARE * SQUARE * 4);
  for (let i = 0; i < SQUARE * SQUARE; i++) pixels.writeUInt32LE((keysym * 2654435761) & 0xffffff, i * 4);
  return picture(pixels, (keysym * SQUARE) % (WIDTH - SQUARE), 100, SQUARE, SQUARE);
}

/** Client message sizes by type (ClientCutText and SetEncodings add their payload). */
function messageSize(buf: Buffer): number {
  switch (buf[0]) {
    case 0:
      return 20;
    case 2:
      return buf.length < 4 ? Infinity : 4 + buf.readUInt16BE(2) * 4;
    case 3:
      return 10;
    case 4:
      return 8;
    case 5:
      return 6;
    case 6:
      return buf.length < 8 ? Infinity : 8 + buf.readUInt32BE(4);
    case 255:
      return 12;
    default:
      throw new Error(`unknown client message ${buf[0]}`);
  }
}

function serve(socket: net.Socket): void {
  socket.setNoDelay(true);
  socket.on('error', () => undefined);
  let buffer: Buffer = Buffer.alloc(0);
  let phase = 'version';
  let frame = 0;
  /** An incremental request the quiet screen has not answered yet. */
  let waiting = false;
  let pendingSquare: Picture | undefined;
  let zrle = false;
  let zlibStarted = false;
  const send = (pic: Picture) => {
    waiting = false;
    if (!zrle) {
      socket.write(pic.raw);
      return;
    }
    // ZRLE: one zlib stream per connection; its 2-byte header goes before the first data.
    const zlibHeader = zlibStarted ? Buffer.alloc(0) : Buffer.from([0x78, 0x01]);
    zlibStarted = true;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(pic.stored.length + zlibHeader.length);
    socket.write(Buffer.concat([updateHeader(1), rectHeader(...pic.rect, ZRLE), length, zlibHeader]));
    socket.write(pic.stored);
  };
  socket.write('RFB 003.008\n');
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      if (phase === 'version') {
        if (buffer.length < 12) break;
        buffer = buffer.subarray(12);
        socket.write(Buffer.from([1, 1]));
        phase = 'security';
      } else if (phase === 'security' || phase === 'init') {
        if (buffer.length < 1) break;
        buffer = buffer.subarray(1);
        socket.write(phase === 'security' ? Buffer.alloc(4) : serverInit());
        phase = phase === 'security' ? 'init' : 'normal';
      } else {
        if (buffer.length < 1) break;
        const size = messageSize(buffer);
        if (buffer.length < size) break;
        const message = buffer.subarray(0, size);
        buffer = buffer.subarray(size);
        if (message[0] === 2) {
          const listed = Array.from({ length: message.readUInt16BE(2) }, (_, i) => message.readInt32BE(4 + i * 4));
          zrle = !rawOnly && listed.find((e) => e === 0 || e === ZRLE) === ZRLE;
        } else if (message[0] === 3) {
          const incremental = message[1] !== 0;
          if (mode === 'busy') send(frames[frame++ % FRAMES]);
          else if (!incremental) send((still ??= picture(Buffer.alloc(WIDTH * HEIGHT * 4, 0x80), 0, 0, WIDTH, HEIGHT)));
          else if (pendingSquare) send(pendingSquare);
          else waiting = true;
          if (mode === 'quiet' && incremental) pendingSquare = undefined;
        } else if (message[0] === 4 && message[1] === 1 && mode === 'quiet') {
          pendingSquare = square(message.readUInt32BE(4));
          if (waiting) {
            send(pendingSquare);
            pendingSquare = undefined;
          }
        }
      }
    }
  });
}

const ports = Array.from(
  { length: listeners },
  () =>
    new Promise<number>((resolve) => {
      const server = net.createServer(serve);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    }),
);
void Promise.all(ports).then((list) => {
  process.stdout.write(`${JSON.stringify(listeners === 1 ? { port: list[0] } : { port: list[0], ports: list })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
