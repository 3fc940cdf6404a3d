// vnc-rfb-client in a process of its own, for the client matrix. Its decoders run inside promise
// executors and socket listeners, so a rectangle that overruns its framebuffer throws where no
// caller can catch it (an unhandled rejection, and the frame it was decoding never ends). Here such
// a crash ends this process with one line saying so, and the test process stays clean.
//
// argv: PORT; env VNC_PASSWORD (optional). Stdout: one JSON object per line:
//   {"frame": {"width", "height", "rgb": base64}} at most every 150 ms while the picture changes,
//   {"failed": "reason"} once, before exiting. Stdin: {"key": keysym} lines; its end closes.
import { createRequire } from 'node:module';

const VncClient = createRequire(import.meta.url)('vnc-rfb-client');
// Its own chatter ("Sending clientInit", ...) goes to console.log: stdout here is the messages.
console.log = () => undefined;

function say(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

let ended = false;
function fail(reason) {
  if (ended) return;
  ended = true;
  say({ failed: reason });
  process.stdout.end(() => process.exit(3));
}

process.on('unhandledRejection', (error) => fail(`vnc-rfb-client crashed: ${error && error.message ? error.message : String(error)}`));
process.on('uncaughtException', (error) => fail(`vnc-rfb-client crashed: ${error.message}`));

const e = VncClient.consts.encodings;
const client = new VncClient({ encodings: [e.copyRect, e.zrle, e.hextile, e.raw, e.pseudoDesktopSize], debug: false, fps: 10 });
client.on('connectTimeout', () => fail('connect timeout'));
client.on('authError', () => fail('authentication failed'));
client.on('connectError', (error) => fail(`connect error: ${String(error)}`));
client.on('closed', () => fail('connection closed'));

let changed = false;
client.on('firstFrameUpdate', () => (changed = true));
client.on('frameUpdated', () => (changed = true));
setInterval(() => {
  if (!changed || ended || !client.fb) return;
  changed = false;
  const width = client.clientWidth;
  const height = client.clientHeight;
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    // Its framebuffer is BGRA.
    rgb[i * 3] = client.fb[i * 4 + 2];
    rgb[i * 3 + 1] = client.fb[i * 4 + 1];
    rgb[i * 3 + 2] = client.fb[i * 4];
  }
  say({ frame: { width, height, rgb: rgb.toString('base64') } });
}, 150).unref();

const password = process.env.VNC_PASSWORD;
client.connect({ host: '127.0.0.1', port: Number(process.argv[2]), ...(password ? { password } : {}) });

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf('\n')) >= 0) {
    const message = JSON.parse(pending.slice(0, newline));
    pending = pending.slice(newline + 1);
    if (typeof message.key === 'number') {
      client.sendKeyEvent(message.key, true);
      client.sendKeyEvent(message.key, false);
    }
  }
});
process.stdin.on('end', () => {
  ended = true;
  client.disconnect();
  process.exit(0);
});
