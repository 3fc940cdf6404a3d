import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type net from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { readBytes, readToEnd } from '../../../test/support/streams.js';
import { waitFor } from '../../../test/support/wait.js';
import { dialWebSocket } from './websocket.js';
import { WebSocketStream } from './websocket-stream.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A real websocket server and a client connected to it, the client wrapped as a stream. */
async function connected(): Promise<{ stream: WebSocketStream; server: WebSocket; client: WebSocket }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await once(wss, 'listening');
  const accepted = once(wss, 'connection') as Promise<[WebSocket]>;
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`, { perMessageDeflate: false });
  await once(client, 'open');
  const [server] = await accepted;
  server.on('error', () => undefined);
  const stream = new WebSocketStream(client, (client as unknown as { _socket: net.Socket })._socket);
  stream.on('error', () => undefined);
  cleanups.push(async () => {
    stream.destroy();
    for (const c of wss.clients) c.terminate();
    await new Promise((r) => wss.close(r));
  });
  return { stream, server, client };
}

describe('WebSocketStream', () => {
  it('reads every message as bytes, in order, and writes each chunk as one binary message', async () => {
    const { stream, server } = await connected();
    server.send(Buffer.from('RFB '));
    server.send('003.008\n'); // a text frame: still just bytes to a relay
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    const got = once(server, 'message') as Promise<[Buffer, boolean]>;
    stream.write(Buffer.from([1, 2, 3]));
    const [data, isBinary] = await got;
    expect([...data]).toEqual([1, 2, 3]);
    expect(isBinary).toBe(true);
  });

  it('takes the payload of data frames from the socket itself, while ws still answers pings', async () => {
    const { stream, server } = await connected();
    expect(stream.receivesPayloadDirectly).toBe(true);
    const messages = [Buffer.alloc(100_000, 1), Buffer.alloc(70_000, 2), Buffer.from('end')];
    const pong = once(server, 'pong') as Promise<[Buffer]>;
    server.send(messages[0]);
    server.ping(Buffer.from('are you there'));
    server.send(messages[1]);
    server.send(messages[2]);
    expect(await readBytes(stream, 170_003)).toEqual(Buffer.concat(messages));
    expect((await pong)[0].toString()).toBe('are you there');
  });

  it("leaves reading to ws when ws's receiver is inside a frame (its half-read frame must not be cut)", () => {
    const write = () => true;
    const receiver = { write, on: () => undefined, _state: 4, _bufferedBytes: 3, _fragmented: 0 };
    const ws = { _receiver: receiver, on: () => undefined, once: () => undefined };
    const stream = new WebSocketStream(ws as unknown as WebSocket);
    expect(stream.receivesPayloadDirectly).toBe(false);
    expect(receiver.write).toBe(write);
  });

  it('ends after the last message when the server closes', async () => {
    const { stream, server } = await connected();
    server.send('last words');
    server.close(1000);
    expect(await readToEnd(stream)).toBe('last words');
  });

  it('says how the console ended once its last bytes are read: the close reason, and a guess', async () => {
    const { stream, server } = await connected();
    const failed = once(stream, 'error') as Promise<[Error]>;
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString()));
    server.send('login: ');
    server.close(1000, 'Target closed');
    const [error] = await failed;
    expect(text).toBe('login: ');
    expect(error.message).toBe('the console closed: Target closed (the VM stopped?)');
  });

  it('tells a connection dropped without a close frame, a reset, and a refusal right after the upgrade apart', async () => {
    const dropped = await connected();
    dropped.server.send('x');
    await readBytes(dropped.stream, 1);
    const droppedError = once(dropped.stream, 'error') as Promise<[Error]>;
    (dropped.server as unknown as { _socket: net.Socket })._socket.end();
    expect((await droppedError)[0].message).toBe("the console's connection dropped without a close frame");

    const reset = await connected();
    reset.server.send('x');
    await readBytes(reset.stream, 1);
    const resetError = once(reset.stream, 'error') as Promise<[Error]>;
    (reset.server as unknown as { _socket: net.Socket })._socket.resetAndDestroy();
    expect((await resetError)[0].message).toBe("the console's connection was reset");

    const refused = await connected();
    const refusedError = once(refused.stream, 'error') as Promise<[Error]>;
    refused.stream.resume();
    (refused.server as unknown as { _socket: net.Socket })._socket.end();
    expect((await refusedError)[0].message).toBe('the console was refused right after the upgrade');
  });

  it("fails a write after the console closed with its own words, not ws's readyState", async () => {
    const { stream, client } = await connected();
    // Nobody reads: the stream has not ended yet when the key press comes.
    client.terminate();
    await waitFor(() => client.readyState === WebSocket.CLOSED, 'the websocket to close');
    const written = await new Promise<Error | null | undefined>((resolve) => stream.write(Buffer.from('a'), resolve));
    expect(written?.message).toBe('the console had already closed');
  });

  it('starts the close handshake with 1000 when its writable side ends', async () => {
    const { stream, server } = await connected();
    const closed = once(server, 'close') as Promise<[number, Buffer]>;
    stream.end();
    const [code] = await closed;
    expect(code).toBe(1000);
    stream.resume();
    await once(stream, 'close');
  });

  it('terminates the websocket when destroyed', async () => {
    const { stream, server, client } = await connected();
    const closed = once(server, 'close') as Promise<[number, Buffer]>;
    stream.destroy();
    const [code] = await closed;
    expect(code).toBe(1006); // no close frame: the connection was cut
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });

  it('is destroyed with the error when the websocket fails', async () => {
    const { stream, server } = await connected();
    const failed = once(stream, 'error') as Promise<[Error]>;
    const closed = new Promise((resolve) => stream.once('close', resolve));
    // A frame with a reserved bit set and no extension agreed: the client must fail.
    (server as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.from([0xc2, 0x01, 0x00]));
    const [error] = await failed;
    expect(error.message).toMatch(/RSV1/);
    await closed;
  });

  it('stops reading the socket while nobody reads the stream, and reads again once they do', async () => {
    const { stream, server } = await connected();
    const frame = Buffer.alloc(32 * 1024, 7);
    let sent = 0;
    // Keep at most 1 MiB in the server's own send buffer: what piles up beyond that is the
    // kernel's socket buffers and the stream's, which a paused reader must bound.
    const pump = () => {
      while (server.readyState === WebSocket.OPEN && server.bufferedAmount < 1024 * 1024 && sent < 256 * 1024 * 1024) {
        server.send(frame);
        sent += frame.length;
      }
    };
    const timer = setInterval(pump, 5);
    cleanups.push(() => clearInterval(timer));
    await waitFor(() => server.bufferedAmount >= 1024 * 1024, 'the server to be held back');
    const heldAt = sent;
    expect(stream.readableLength).toBeLessThanOrEqual(256 * 1024);
    expect(heldAt).toBeLessThan(64 * 1024 * 1024);
    let read = 0;
    stream.on('data', (c: Buffer) => (read += c.length));
    await waitFor(() => read > heldAt, 'the reader to catch up');
  });
});

describe("a console's close reason", () => {
  it('never says the token of the URL the console was dialled with, though the proxy quotes it', async () => {
    const token = 'c0ns0le-t0ken-4242';
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    wss.on('connection', (ws, req) => ws.close(1008, `Token '${new URL(req.url ?? '/', 'ws://x').searchParams.get('token')}' not found`));
    cleanups.push(() => new Promise<void>((r) => wss.close(() => r())));
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/websockify?token=${token}`;
    const stream = await dialWebSocket({ url, protocols: ['binary'], tls: {}, signal: AbortSignal.timeout(10_000) });
    const failed = once(stream, 'error') as Promise<[Error]>;
    stream.resume();
    const [err] = await failed;
    expect(err.message).toBe("the console proxy refused the session: Token '***' not found");
  });
});
