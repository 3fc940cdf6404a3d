// A console that floods: an RFB 3.8 server (security None, 32 bpp, 1920x1080) that, once its
// handshake is over, sends one whole picture and then unrequested FramebufferUpdates of one 1x1
// Raw pixel each (20 bytes, walking over the screen) as fast as its connection takes them, for
// as long as it is open, reading nothing but the handshake: the security audit's flood (issue 36,
// item 5). `node --import tsx flooding-console.ts` prints {"port":N} once it listens.
import net, { type AddressInfo } from 'node:net';
import { unrequestedPixelUpdates } from '../../test/support/hostile-rfb.js';

const WIDTH = 1920;
const HEIGHT = 1080;
/** 1x1 updates in one write. */
const UPDATES_A_WRITE = 8192;

function serverInit(): Buffer {
  const name = Buffer.from('bench-flood');
  const out = Buffer.alloc(24 + name.length);
  out.writeUInt16BE(WIDTH, 0);
  out.writeUInt16BE(HEIGHT, 2);
  Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0]).copy(out, 4);
  out.writeUInt32BE(name.length, 20);
  name.copy(out, 24);
  return out;
}

/** One whole Raw picture, then the flood's repeated write. */
function wholePicture(): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(WIDTH, 8);
  head.writeUInt16BE(HEIGHT, 10);
  return Buffer.concat([head, Buffer.alloc(WIDTH * HEIGHT * 4, 0x40)]);
}

const flood = unrequestedPixelUpdates(WIDTH, HEIGHT, UPDATES_A_WRITE);

function serve(socket: net.Socket): void {
  socket.on('error', () => undefined);
  // Version (12 bytes), security type (1), ClientInit (1): the server answers each in turn.
  const steps = [12, 1, 1];
  let received = 0;
  let flooding = false;
  socket.write('RFB 003.008\n');
  socket.on('data', (chunk: Buffer) => {
    if (flooding) return;
    received += chunk.length;
    while (steps.length > 0 && received >= steps[0]) {
      received -= steps.shift() as number;
      if (steps.length === 2) socket.write(Buffer.from([1, 1]));
      else if (steps.length === 1) socket.write(Buffer.from([0, 0, 0, 0]));
      else {
        flooding = true;
        socket.write(serverInit());
        socket.write(wholePicture());
        const pump = () => {
          while (!socket.destroyed) if (!socket.write(flood)) return void socket.once('drain', pump);
        };
        pump();
      }
    }
  });
}

const server = net.createServer(serve);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
