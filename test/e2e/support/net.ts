import { stat } from 'node:fs/promises';
import net from 'node:net';
import { pollFor } from './poll.js';
import { runProgram } from './processes.js';

/**
 * A TCP port the OS just handed out on 127.0.0.1, for programs that cannot listen on port 0
 * and report it. The port is released before it is returned: callers retry on a bind failure.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true when a TCP connection to 127.0.0.1:port is accepted, false when refused. */
export function canConnect(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      // TCP's simultaneous open: dialling a free port in the ephemeral range can pick that very
      // port as the source and "connect" to itself. Nobody listens there.
      const self = socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress;
      socket.destroy();
      resolve(!self);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until a unix socket file exists at `path`. */
export async function awaitSocketFile(path: string, what: string, timeoutMs = 30_000, detail?: () => string): Promise<void> {
  await pollFor(async () => ((await stat(path).catch(() => undefined))?.isSocket() ? true : undefined), { what, timeoutMs, detail });
}

export interface ListeningSocket {
  address: string;
  port: number;
  pid: number;
}

/** Parses `ss -ltnpH` rows: `LISTEN 0 128 127.0.0.1:5901 0.0.0.0:* users:(("node",pid=42,fd=20))`. */
export function parseListeningSockets(ssOutput: string): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const line of ssOutput.split('\n')) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 5) continue;
    const local = columns[3];
    const colon = local.lastIndexOf(':');
    const port = Number(local.slice(colon + 1));
    const address = local.slice(0, colon).replace(/^\[|\]$/g, '');
    for (const match of line.matchAll(/pid=(\d+)/g)) sockets.push({ address, port, pid: Number(match[1]) });
  }
  return sockets;
}

/** Every TCP socket listening on this machine, with the pids that hold it (needs root to see them all). */
export async function listeningSockets(): Promise<ListeningSocket[]> {
  const { stdout, code, stderr } = await runProgram('ss', ['-ltnpH'], { timeoutMs: 10_000 });
  if (code !== 0) throw new Error(`ss -ltnpH failed: ${stderr}`);
  return parseListeningSockets(stdout);
}

/** The TCP ports `pid` listens on. */
export async function listeningPortsOf(pid: number): Promise<number[]> {
  return (await listeningSockets()).filter((s) => s.pid === pid).map((s) => s.port);
}
