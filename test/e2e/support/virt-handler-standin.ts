// A stand-in for virt-handler's console server (KubeVirt v1.8.4 cmd/virt-handler and pkg/virt-handler/rest/console.go),
// the one part of KubeVirt that needs a node: virt-api dials it for /vnc and /console with mutual TLS and copies bytes
// between the user's websocket and this one. It serves what virt-handler serves, as virt-handler does:
// - TLS that requires a client certificate from the KubeVirt CA whose CN is kubevirt.io:system:client:virt-handler
//   (pkg/util/tls SetupTLSForServer: RequireAndVerifyClientCert, then verifyPeerCert), with a serving certificate
//   whose CN is kubevirt.io:system:node:virt-handler (what virt-api's SetupTLSForVirtHandlerClients checks);
// - GET /v1/namespaces/{ns}/virtualmachineinstances/{name}/vnc and /console as websockets of subprotocol
//   plain.kubevirt.io, bridged to QEMU's VNC and serial unix sockets (virt-vnc, virt-serial0);
// - one session per VMI and kind: a new one closes the old at the TCP level (no close frame, as gorilla's Close);
//   `preserveSession` true (Go's ParseBool: 1, t, TRUE...) on a VNC in use is refused with 503 "Active VNC
//   connection. Request denied." as text; the serial console has no such parameter (a new one always wins);
// - only binary messages reach QEMU (kvcorev1's binaryReader skips text messages);
// - a VMI it does not know: 404 "VMI NS/NAME does not exist" (getVMI);
// - PUT .../pause, .../unpause and .../softreboot (cmd/virt-handler's routes, pkg/virt-handler/rest/lifecycle.go): the
//   request noted, the VMI's `lifecycle` hook run (virt-launcher's libvirt call), 202 with no body; a failing hook is
//   a 500 with its text.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CertPair } from './kube-certs.js';

export const VIRT_HANDLER_SERVER_CN = 'kubevirt.io:system:node:virt-handler';
export const VIRT_HANDLER_CLIENT_CN = 'kubevirt.io:system:client:virt-handler';
const PLAIN_STREAM_PROTOCOL = 'plain.kubevirt.io';

export type HandlerConsoleKind = 'vnc' | 'console';

export interface HandlerVmi {
  namespace: string;
  name: string;
  /** QEMU's `-vnc unix:PATH` socket. */
  vncSocketPath?: string;
  /** QEMU's `-serial unix:PATH,server=on` socket. */
  serialSocketPath?: string;
  /** What virt-launcher does for a lifecycle PUT (libvirt's suspend, resume, reboot); default nothing. */
  lifecycle?: (action: HandlerLifecycleAction) => Promise<void>;
}

export type HandlerLifecycleAction = 'pause' | 'unpause' | 'softreboot';

/** One lifecycle PUT virt-api forwarded, with the body it passed on. */
export interface HandlerLifecycleRequest {
  vmi: string;
  action: HandlerLifecycleAction;
  body: string;
}

/** What happened to each console request virt-api made. */
export interface HandlerEvent {
  vmi: string;
  kind: HandlerConsoleKind;
  what: 'opened' | 'kicked' | 'ended' | 'refused';
  detail?: string;
}

export interface VirtHandlerStandin {
  address: string;
  port: number;
  events: HandlerEvent[];
  /** The pause, unpause and softreboot requests virt-api forwarded, in order. */
  lifecycle: HandlerLifecycleRequest[];
  /** Sessions open now, per `ns/name kind`. */
  activeSessions(vmi: string, kind: HandlerConsoleKind): number;
  /** A VMI scheduled to this node later (virt-handler's informer learns it). */
  addVmi(vmi: HandlerVmi): void;
  close(): Promise<void>;
}

/** Go's strconv.ParseBool, which virt-handler (and virt-api) read preserveSession with: anything else is false. */
function goBool(value: string | null): boolean {
  return value !== null && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

const LIFECYCLE_ROUTE = /^\/v1\/namespaces\/([^/]+)\/virtualmachineinstances\/([^/]+)\/(pause|unpause|softreboot)$/;
const ROUTE = /^\/v1\/namespaces\/([^/]+)\/virtualmachineinstances\/([^/]+)\/(vnc|console)$/;

/** A session's stop channel: stopping it before the upgrade finished ends the websocket as soon as it exists. */
class Stop {
  stopped = false;
  onStop?: () => void;
  stop(): void {
    this.stopped = true;
    this.onStop?.();
  }
}

function refuse(socket: Duplex, status: number, reason: string, text: string): void {
  // What go-restful's WriteError leaves: the status and the error's text, which net/http sniffs as text/plain.
  const body = Buffer.from(text);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Starts the stand-in on `address` (a free port); `serving` must be signed by the CA in `caFile`. */
export async function startVirtHandlerStandin(options: {
  caFile: string;
  serving: CertPair;
  vmis: readonly HandlerVmi[];
  address?: string;
}): Promise<VirtHandlerStandin> {
  const address = options.address ?? '127.0.0.1';
  const vmis = new Map(options.vmis.map((vmi) => [`${vmi.namespace}/${vmi.name}`, vmi]));
  const sessions = new Map<string, Stop>();
  const events: HandlerEvent[] = [];
  const lifecycle: HandlerLifecycleRequest[] = [];
  const open = new Set<WebSocket>();
  const server: Server = createServer(
    {
      cert: readFileSync(options.serving.cert),
      key: readFileSync(options.serving.key),
      ca: readFileSync(options.caFile),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req: IncomingMessage, res: ServerResponse) => void serveLifecycle(req, res, vmis, lifecycle),
  );
  // verifyPeerCert: after the chain, the client's CN must name virt-handler's client (virt-api).
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.getPeerCertificate().subject?.CN !== VIRT_HANDLER_CLIENT_CN) socket.destroy();
  });
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : false),
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'https://virt-handler');
    const route = ROUTE.exec(url.pathname);
    if (!route || req.method !== 'GET') return refuse(socket, 404, 'Not Found', '404 page not found');
    const [, namespace, name, kind] = route as unknown as [string, string, string, HandlerConsoleKind];
    const key = `${namespace}/${name}`;
    const vmi = vmis.get(key);
    if (!vmi) return refuse(socket, 404, 'Not Found', `VMI ${key} does not exist`);
    const sessionKey = `${key} ${kind}`;
    if (kind === 'vnc' && sessions.has(sessionKey) && goBool(url.searchParams.get('preserveSession'))) {
      events.push({ vmi: key, kind, what: 'refused', detail: 'preserveSession' });
      return refuse(socket, 503, 'Service Unavailable', 'Active VNC connection. Request denied.');
    }
    // newStopChan closes the session before stream() upgrades: a request that then fails to upgrade has kicked it too.
    const previous = sessions.get(sessionKey);
    const stop = new Stop();
    sessions.set(sessionKey, stop);
    if (previous) {
      events.push({ vmi: key, kind, what: 'kicked' });
      previous.stop();
    }
    const release = () => {
      if (sessions.get(sessionKey) === stop) sessions.delete(sessionKey);
    };
    socket.once('close', release);
    const path = kind === 'vnc' ? vmi.vncSocketPath : vmi.serialSocketPath;
    wss.handleUpgrade(req, socket, head, (ws) => {
      open.add(ws);
      stop.onStop = () => ws.terminate();
      if (stop.stopped) ws.terminate();
      events.push({ vmi: key, kind, what: 'opened' });
      bridge(ws, path, () => {
        open.delete(ws);
        release();
        events.push({ vmi: key, kind, what: 'ended' });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    address,
    port,
    events,
    lifecycle,
    activeSessions: (vmi, kind) => (sessions.has(`${vmi} ${kind}`) ? 1 : 0),
    addVmi: (vmi) => void vmis.set(`${vmi.namespace}/${vmi.name}`, vmi),
    async close() {
      for (const ws of open) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** virt-handler's LifecycleHandler: PUT only, a VMI it knows, then virt-launcher's call; 202 and no body. */
async function serveLifecycle(
  req: IncomingMessage,
  res: ServerResponse,
  vmis: ReadonlyMap<string, HandlerVmi>,
  requests: HandlerLifecycleRequest[],
): Promise<void> {
  const text = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
  const route = LIFECYCLE_ROUTE.exec(new URL(req.url ?? '/', 'https://virt-handler').pathname);
  if (!route) return void text(404, '404 page not found');
  if (req.method !== 'PUT') return void text(405, '405: Method Not Allowed');
  const [, namespace, name, action] = route as unknown as [string, string, string, HandlerLifecycleAction];
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const key = `${namespace}/${name}`;
  const vmi = vmis.get(key);
  if (!vmi) return void text(404, `VMI ${key} does not exist`);
  requests.push({ vmi: key, action, body: Buffer.concat(chunks).toString('utf8') });
  try {
    await vmi.lifecycle?.(action);
  } catch (err) {
    return void text(500, err instanceof Error ? err.message : String(err));
  }
  res.writeHead(202).end();
}

/**
 * virt-handler's stream(): the websocket is upgraded first, then QEMU's socket is dialled; bytes are copied both
 * ways until either side ends, and then the websocket's connection is closed without a close frame.
 */
function bridge(ws: WebSocket, path: string | undefined, ended: () => void): void {
  let done = false;
  const qemu: Socket | undefined = path === undefined ? undefined : connect(path);
  const finish = () => {
    if (done) return;
    done = true;
    qemu?.destroy();
    ws.terminate();
    ended();
  };
  ws.on('close', finish);
  ws.on('error', finish);
  if (!qemu) return finish();
  qemu.on('data', (chunk: Buffer) => ws.send(chunk, { binary: true }));
  qemu.on('close', finish);
  qemu.on('error', finish);
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) qemu.write(data);
  });
}
