// A stand-in console endpoint for the benchmarks: a TLS websocket server that behaves like a
// kube-apiserver's `vnc` subresource or a websockify proxy (binary frames, server speaks first).
// Run as its own process (`node --import tsx upstream.ts CERT KEY [--relay=BULK,ECHO]`); prints
// {"port":N} once it listens.
//
// What a connection does depends on its path:
//   /bulk   greeting, then FRAME_BYTES binary frames as fast as the reader takes them
//           (sends only while ws.bufferedAmount is under BULK_WINDOW: bounded, real backpressure)
//   /echo   greeting, then every message is sent back as is
//   /idle   greeting, then nothing
//   /switch greeting, then every message from the client turns /bulk streaming on or off
// The same modes answer as KubeVirt VMIs: the vnc subresource of VMI `bulk` is /bulk, and so on
// (ws picks the client's first subprotocol, `plain.kubevirt.io` for vconsole and virtctl).
// The KubeVirt pre-flight (VMI GET, SelfSubjectAccessReview POST) is answered too, so a
// kubeconfig target can be pointed here as well.
//
// With --relay, the bulk and echo modes are not made here but relayed, as virt-handler copies a
// console: each connection dials TCP port BULK or ECHO (tcp-backend.ts, its own process) and
// every read becomes one websocket frame as it came, every frame from the client one write.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { wsSocket } from './clients.js';
import { FRAME_BYTES, GREETING } from './upstream-wire.js';

export { FRAME_BYTES, GREETING };
/** Bytes the server lets pile up in ws's send buffer before it waits for the socket to drain. */
const BULK_WINDOW = 256 * 1024;

const [certFile, keyFile, relayFlag] = process.argv.slice(2);
/** --relay=BULK,ECHO: the TCP ports of tcp-backend.ts. */
const relay = relayFlag?.startsWith('--relay=') ? relayFlag.slice('--relay='.length).split(',').map(Number) : undefined;
const frame = Buffer.alloc(FRAME_BYTES, 0x5a);

const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.method === 'GET' && req.url?.includes('/virtualmachineinstances/')) {
    res.end(JSON.stringify({ metadata: { name: req.url.split('/').pop() }, status: { phase: 'Running' } }));
  } else if (req.method === 'POST' && req.url?.endsWith('/selfsubjectaccessreviews')) {
    req.resume();
    res.end(JSON.stringify({ status: { allowed: true } }));
  } else {
    res.statusCode = 404;
    res.end('{}');
  }
});
const wss = new WebSocketServer({ server, perMessageDeflate: false });

wss.on('connection', (ws, req) => {
  wsSocket(ws).setNoDelay(true);
  ws.on('error', () => undefined);
  // A KubeVirt vnc subresource (…/virtualmachineinstances/NAME/vnc) acts as the mode its VMI is named after.
  const path = new URL(req.url ?? '/', 'https://bench').pathname.replace(/\/vnc$/, '');
  if (relay) {
    const [bulkPort, echoPort] = relay;
    if (path.endsWith('/bulk') || path.endsWith('/echo')) relayTcp(ws, path.endsWith('/bulk') ? bulkPort : echoPort);
    else ws.close();
    return;
  }
  ws.send(GREETING);
  if (path.endsWith('/echo')) {
    ws.on('message', (data) => ws.send(data));
  } else if (path.endsWith('/bulk')) {
    streamBulk(ws, () => true);
  } else if (path.endsWith('/switch')) {
    let turn = 0;
    ws.on('message', () => {
      const mine = ++turn;
      if (mine % 2 === 1) streamBulk(ws, () => turn === mine);
    });
  }
});

/** Sends frames while `more()` holds, never more than BULK_WINDOW ahead of the socket. */
function streamBulk(ws: WebSocket, more: () => boolean): void {
  const socket = wsSocket(ws);
  const pump = () => {
    while (more() && ws.readyState === ws.OPEN && ws.bufferedAmount < BULK_WINDOW) ws.send(frame);
    if (more() && ws.readyState === ws.OPEN) socket.once('drain', pump);
  };
  pump();
}

/**
 * virt-handler's copy: the console's TCP reads go out one frame each as they came, the client's
 * frames in one write each; reads pause while BULK_WINDOW bytes wait in ws's send buffer.
 */
function relayTcp(ws: WebSocket, port: number): void {
  const tcp = net.connect({ port, host: '127.0.0.1', noDelay: true });
  const socket = wsSocket(ws);
  tcp.on('error', () => ws.terminate());
  tcp.on('close', () => ws.close());
  ws.on('close', () => tcp.destroy());
  tcp.on('data', (data: Buffer) => {
    ws.send(data);
    if (ws.bufferedAmount >= BULK_WINDOW) {
      tcp.pause();
      socket.once('drain', () => tcp.resume());
    }
  });
  ws.on('message', (data: Buffer) => tcp.write(data));
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
