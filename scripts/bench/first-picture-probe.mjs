// Loaded into `vconsole proxy` by first-picture-profile.ts (node --import): marks, in ms since
// the process started (performance.now()), each step on the way to a console's first picture,
// appended as JSON lines to $BENCH_PROBE_FILE. Watches only (diagnostics channels, a wrapped
// stdout and readFileSync); changes nothing vconsole does.
import dc from 'node:diagnostics_channel';
import fs, { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const file = process.env.BENCH_PROBE_FILE;
const mark = (what) => appendFileSync(file, `${JSON.stringify({ what, ms: performance.now() })}\n`);
mark('probe loaded (Node.js bootstrapped)');

dc.subscribe('http.client.request.start', ({ request }) => mark(`https request ${request.method} ${request.path.split('?')[0]}`));
dc.subscribe('http.client.response.finish', ({ request, response }) =>
  mark(`https response ${response.statusCode} ${request.path.split('?')[0]}`),
);
dc.subscribe('net.client.socket', ({ socket }) => {
  mark('socket dialled');
  socket.once('connect', () => mark('tcp connected'));
  socket.once('secureConnect', () => mark('tls handshake done'));
});

const read = fs.readFileSync;
fs.readFileSync = function readFileSyncMarked(path, ...rest) {
  const name = String(path);
  if (/kube|config/i.test(name) && !/node_modules|\/dist\//.test(name)) mark(`readFileSync ${name.split('/').slice(-2).join('/')}`);
  return read.call(this, path, ...rest);
};
syncBuiltinESMExports();

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  mark(/"port"/.test(String(chunk)) ? 'port line printed' : 'stdout written');
  return write(chunk, ...rest);
};
process.once('beforeExit', () => mark('beforeExit'));
