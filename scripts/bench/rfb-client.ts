// The benchmark's RFB client (a stand-in for a VNC viewer): RFB 3.8, security None, the console's own 32 bpp format, Raw or
// ZRLE. It keeps one incremental update request outstanding (as a real viewer does: the next
// request goes out as an update is in) and counts what it gets; pixels are not decoded.
import net from 'node:net';
import { once } from 'node:events';
// The client messages are the product's own.
import { keyEvent, setEncodingsMessage, updateRequest } from '../../src/rfb/client/messages.js';

export const ENCODING = { raw: 0, zrle: 16 };
const PSEUDO = { desktopSize: -223, cursor: -239, qemuKey: -258, extendedDesktopSize: -308 };

/** 32 bpp, depth 24, little-endian, true colour, red at bit 16 (the bench console's own). */
const PIXEL_FORMAT = Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);

/**
 * Connects to an RFB server on `port` and starts reading. `onUpdate({ pixels, bytes })` is called
 * for every FramebufferUpdate once all of it is in. Resolves with
 * `{ width, height, bytes, pixels, updates, key(keysym), close() }` after ServerInit.
 */
export interface BenchClient {
  width: number;
  height: number;
  bytes: number;
  pixels: number;
  updates: number;
  key(keysym: number): void;
  close(): void;
}

type Then = (head: Buffer) => void;

export async function connectClient(
  port: number,
  {
    encoding = ENCODING.raw,
    onUpdate = () => undefined,
  }: { encoding?: number; onUpdate?: (update: { pixels: number; bytes: number }) => void } = {},
): Promise<BenchClient> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  const client: BenchClient = { width: 0, height: 0, bytes: 0, pixels: 0, updates: 0, key: () => undefined, close: () => undefined };
  // A small state machine: `need` bytes are collected into `head` for `then`, or `skip` bytes are
  // passed over (pixel data, never copied).
  let need = 12;
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let afterSkip: () => void = () => undefined;
  let then: Then;
  let rectsLeft = 0;
  let updatePixels = 0;
  let updateBytes = 0;
  let ready: () => void = () => undefined;
  const initialised = new Promise<void>((resolve, reject) => {
    ready = resolve;
    socket.once('close', () => reject(new Error('RFB server closed the connection during the handshake')));
  });
  const expect = (n: number, fn: Then) => {
    need = n;
    head = Buffer.alloc(0);
    then = fn;
  };
  const nextMessage = () => expect(1, message);
  const updateDone = () => {
    client.updates += 1;
    client.pixels += updatePixels;
    socket.write(updateRequest(true, client.width, client.height));
    onUpdate({ pixels: updatePixels, bytes: updateBytes });
    nextMessage();
  };
  const nextRect = () => {
    if (rectsLeft === 0) updateDone();
    else expect(12, rect);
  };
  const skipThen = (n: number, fn: () => void) => {
    if (n === 0) return fn();
    skip = n;
    afterSkip = fn;
  };
  function rect(h: Buffer): void {
    rectsLeft -= 1;
    const w = h.readUInt16BE(4);
    const hgt = h.readUInt16BE(6);
    const enc = h.readInt32BE(8);
    if (enc === ENCODING.raw) {
      updatePixels += w * hgt;
      skipThen(w * hgt * 4, nextRect);
    } else if (enc === ENCODING.zrle) {
      updatePixels += w * hgt;
      expect(4, (len) => skipThen(len.readUInt32BE(0), nextRect));
    } else if (enc === PSEUDO.cursor) {
      skipThen(w * hgt * 4 + Math.ceil(w / 8) * hgt, nextRect);
    } else if (enc === PSEUDO.desktopSize || enc === PSEUDO.qemuKey) {
      if (enc === PSEUDO.desktopSize) Object.assign(client, { width: w, height: hgt });
      nextRect();
    } else if (enc === PSEUDO.extendedDesktopSize) {
      expect(4, (n) => skipThen(n[0] * 16, nextRect));
    } else {
      throw new Error(`bench client: unexpected encoding ${enc}`);
    }
  }
  function message(type: Buffer): void {
    switch (type[0]) {
      case 0:
        updatePixels = 0;
        updateBytes = 0;
        expect(3, (h) => {
          rectsLeft = h.readUInt16BE(1);
          nextRect();
        });
        break;
      case 1:
        expect(5, (h) => skipThen(h.readUInt16BE(3) * 6, nextMessage));
        break;
      case 2:
        nextMessage();
        break;
      case 3:
        expect(7, (h) => skipThen(h.readUInt32BE(3), nextMessage));
        break;
      default:
        throw new Error(`bench client: unexpected server message ${type[0]}`);
    }
  }
  then = () => {
    socket.write('RFB 003.008\n');
    expect(1, (n) =>
      expect(n[0], () => {
        socket.write(Buffer.from([1]));
        expect(4, () => {
          socket.write(Buffer.from([1])); // ClientInit: shared
          expect(24, (init) => {
            client.width = init.readUInt16BE(0);
            client.height = init.readUInt16BE(2);
            expect(init.readUInt32BE(20), () => {
              socket.write(
                Buffer.concat([
                  PIXEL_FORMAT,
                  setEncodingsMessage([encoding, PSEUDO.desktopSize]),
                  updateRequest(false, client.width, client.height),
                ]),
              );
              nextMessage();
              ready();
            });
          });
        });
      }),
    );
  };
  socket.on('data', (chunk: Buffer) => {
    client.bytes += chunk.length;
    updateBytes += chunk.length;
    let at = 0;
    while (at < chunk.length || (need === 0 && skip === 0)) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        if (skip === 0) afterSkip();
        continue;
      }
      const n = Math.min(need - head.length, chunk.length - at);
      head = Buffer.concat([head, chunk.subarray(at, at + n)]);
      at += n;
      if (head.length === need) then(head);
    }
  });
  await initialised;
  client.key = (keysym) => void socket.write(keyEvent(true, keysym));
  client.close = () => socket.destroy();
  return client;
}
