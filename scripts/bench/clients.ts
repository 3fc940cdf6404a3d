// The benchmark clients. The same measurement runs against the websocket directly (`ws`
// client, the ceiling) and against a TCP port (vconsole, socat): only the transport differs.
import net from 'node:net';
import { once } from 'node:events';
import WebSocket from 'ws';

/** A connected byte source: `onData(fn)` gets every chunk; `send`, `pause`, `resume`, `close`. */
export interface Connection {
  onData(fn: (chunk: Buffer) => void): void;
  send(data: Buffer): void;
  pause(): void;
  resume(): void;
  close(): void;
}

export type Connect = () => Promise<Connection>;

/** ws's socket, which it keeps to itself: only to set TCP_NODELAY. */
export function wsSocket(ws: WebSocket): net.Socket {
  return (ws as unknown as { _socket: net.Socket })._socket;
}

export async function connectWs(url: string): Promise<Connection> {
  const ws = new WebSocket(url, ['binary'], { rejectUnauthorized: false, perMessageDeflate: false });
  ws.binaryType = 'nodebuffer';
  await once(ws, 'open');
  wsSocket(ws).setNoDelay(true);
  return {
    onData: (fn) => ws.on('message', fn),
    send: (buf) => ws.send(buf),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
    close: () => ws.terminate(),
  };
}

export async function connectTcp(port: number): Promise<Connection> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  return {
    onData: (fn) => socket.on('data', fn),
    send: (buf) => void socket.write(buf),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: () => socket.destroy(),
  };
}

/**
 * Reads `bytes` from a /bulk stream; the clock starts at the first byte, so the handshake and
 * the upstream dial are not counted. Resolves with bytes per second. Gives up after `timeoutMs`.
 */
export async function measureThroughput(connect: Connect, bytes: number, timeoutMs = 30_000): Promise<number> {
  const conn = await connect();
  try {
    return await new Promise<number>((resolve, reject) => {
      let start: number | undefined;
      let got = 0;
      const timer = setTimeout(() => reject(new Error(`read ${got} of ${bytes} bytes in ${timeoutMs} ms`)), timeoutMs);
      conn.onData((chunk) => {
        start ??= performance.now();
        got += chunk.length;
        if (got >= bytes) {
          clearTimeout(timer);
          resolve(got / ((performance.now() - (start ?? 0)) / 1000));
        }
      });
    });
  } finally {
    conn.close();
  }
}

/**
 * Round trips of `size`-byte messages through an /echo stream, one at a time (a key press
 * waits for nothing, but its echo is what a user sees). Resolves with the times in ms.
 */
export async function measureRoundTrips(connect: Connect, count: number, size = 8, timeoutMs = 30_000): Promise<number[]> {
  const conn = await connect();
  try {
    return await new Promise<number[]>((resolve, reject) => {
      const times: number[] = [];
      const message = Buffer.alloc(size, 0x41);
      let greeted = false;
      let pending = 0;
      let sentAt = 0;
      const timer = setTimeout(() => reject(new Error(`${times.length} of ${count} round trips in ${timeoutMs} ms`)), timeoutMs);
      const sendNext = () => {
        pending = size;
        sentAt = performance.now();
        conn.send(message);
      };
      conn.onData((chunk) => {
        if (!greeted) {
          // The greeting may share a TCP segment with nothing else: it is always exactly its own.
          greeted = true;
          sendNext();
          return;
        }
        pending -= chunk.length;
        if (pending > 0) return;
        times.push(performance.now() - sentAt);
        if (times.length === count) {
          clearTimeout(timer);
          resolve(times);
        } else {
          sendNext();
        }
      });
    });
  } finally {
    conn.close();
  }
}

/**
 * A viewer that takes at most `bytesPerSecond` (token bucket, 50 ms slices) for `durationMs`.
 * Resolves with the bytes it read.
 */
export async function readSlowly(connect: Connect, bytesPerSecond: number, durationMs: number): Promise<number> {
  const conn = await connect();
  const slice = 50;
  const budgetPerSlice = (bytesPerSecond * slice) / 1000;
  let got = 0;
  let budget = budgetPerSlice;
  let paused = false;
  conn.onData((chunk) => {
    got += chunk.length;
    budget -= chunk.length;
    if (budget <= 0 && !paused) {
      paused = true;
      conn.pause();
    }
  });
  const refill = setInterval(() => {
    budget = Math.min(budget + budgetPerSlice, budgetPerSlice);
    if (paused && budget > 0) {
      paused = false;
      conn.resume();
    }
  }, slice);
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  clearInterval(refill);
  conn.close();
  return got;
}
