import net from 'node:net';
import { once } from 'node:events';
import { Duplex, PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.js';
import { relay } from './relay.js';

/** A connected pair of real loopback TCP sockets. */
async function socketPair(): Promise<[net.Socket, net.Socket, net.Server]> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const accepted = once(server, 'connection') as Promise<[net.Socket]>;
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [peer] = await accepted;
  return [client, peer, server];
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function relayedPairs() {
  const [viewer, clientSide, s1] = await socketPair();
  const [upstreamSide, vm, s2] = await socketPair();
  cleanups.push(() => {
    for (const s of [viewer, clientSide, upstreamSide, vm]) s.destroy();
    s1.close();
    s2.close();
  });
  const counts = { down: 0, up: 0 };
  const done = relay(clientSide, upstreamSide, {
    onDownstream: (n) => (counts.down += n),
    onUpstream: (n) => (counts.up += n),
  });
  return { viewer, vm, clientSide, upstreamSide, counts, done };
}

describe('relay', () => {
  it('copies bytes both ways and counts them per direction', async () => {
    const { viewer, vm, counts } = await relayedPairs();
    vm.write('RFB 003.008\n');
    const [hello] = await once(viewer, 'data');
    expect(hello.toString()).toBe('RFB 003.008\n');
    viewer.write('RFB 003.008\n!');
    let got = '';
    while (got.length < 13) got += (await once(vm, 'data'))[0].toString();
    expect(got).toBe('RFB 003.008\n!');
    expect(counts).toEqual({ down: 12, up: 13 });
  });

  it('ends the viewer after flushing when the VM side closes', async () => {
    const { viewer, vm, done } = await relayedPairs();
    const received: Buffer[] = [];
    viewer.on('data', (c) => received.push(c));
    vm.end(Buffer.alloc(100_000, 7));
    await once(viewer, 'end');
    expect(Buffer.concat(received).length).toBe(100_000);
    const result = await done;
    expect(result.closedBy).toBe('upstream');
  });

  it('closes the upstream when the viewer disconnects', async () => {
    const { viewer, vm, done } = await relayedPairs();
    viewer.destroy();
    await once(vm, 'close');
    expect((await done).closedBy).toBe('client');
  });

  it('names the viewer as the one who hung up even when its upstream closes first (a hub or a recording tap closes at once)', async () => {
    const [viewer, clientSide, server] = await socketPair();
    cleanups.push(() => {
      viewer.destroy();
      clientSide.destroy();
      server.close();
    });
    // Like a hub's viewer end: it goes the moment its writable side is ended, before the
    // viewer's socket has finished closing.
    const upstream = new Duplex({
      read() {},
      write(_chunk, _encoding, callback) {
        callback();
      },
      final(callback) {
        callback();
        this.destroy();
      },
    });
    const done = relay(clientSide, upstream, { onDownstream: () => undefined, onUpstream: () => undefined });
    viewer.end();
    expect((await done).closedBy).toBe('client');
  });

  it('keeps the reason an upstream gives after its end (a websocket closing with a reason)', async () => {
    const upstream = new PassThrough();
    const [viewer, clientSide, server] = await socketPair();
    viewer.on('error', () => undefined);
    cleanups.push(() => {
      viewer.destroy();
      clientSide.destroy();
      server.close();
    });
    const relayed = relay(clientSide, upstream, { onDownstream: () => undefined, onUpstream: () => undefined });
    upstream.once('end', () => upstream.destroy(new Error('the console closed: Target closed (the VM stopped?)')));
    let received = '';
    viewer.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const last = 'x'.repeat(4 * 1024 * 1024);
    upstream.end(last);
    const result = await relayed;
    // The viewer still gets what the console said before it went, as after a clean end.
    await waitFor(() => received.length === last.length, 'the last bytes at the viewer');
    expect(result.closedBy).toBe('upstream');
    expect(result.error?.message).toBe('the console closed: Target closed (the VM stopped?)');
  });

  it('destroys the viewer at once when the upstream fails', async () => {
    const { viewer, upstreamSide, done } = await relayedPairs();
    viewer.on('error', () => undefined);
    upstreamSide.destroy(new Error('upstream broke'));
    await once(viewer, 'close');
    const result = await done;
    expect(result.closedBy).toBe('upstream');
    expect(result.error?.message).toBe('upstream broke');
  });

  it('writes the first chunk of a turn at once and batches the rest of that turn into one writev', async () => {
    const viewer = new RecordingViewer();
    const upstream = new PassThrough();
    cleanups.push(() => upstream.destroy());
    void relay(viewer, upstream, { onDownstream: () => undefined, onUpstream: () => undefined });
    for (const size of [1, 2, 3, 4]) upstream.write(Buffer.alloc(size));
    expect(viewer.writes).toEqual([[1]]); // a lone key press's echo waits for nothing
    await new Promise((r) => setImmediate(r));
    expect(viewer.writes).toEqual([[1], [2, 3, 4]]);
    upstream.write(Buffer.alloc(5)); // a new turn: at once again
    expect(viewer.writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('delivers a burst of chunks whole and in order through a real socket', async () => {
    const [viewer, clientSide, server] = await socketPair();
    const upstream = new PassThrough();
    cleanups.push(() => {
      viewer.destroy();
      clientSide.destroy();
      upstream.destroy();
      server.close();
    });
    void relay(clientSide, upstream, { onDownstream: () => undefined, onUpstream: () => undefined });
    const sent = Buffer.alloc(3000 * 100);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7) % 251;
    const received: Buffer[] = [];
    let got = 0;
    viewer.on('data', (c: Buffer) => {
      received.push(c);
      got += c.length;
    });
    for (let i = 0; i < 100; i++) upstream.write(sent.subarray(i * 3000, (i + 1) * 3000));
    await waitFor(() => got >= sent.length);
    expect(Buffer.concat(received).equals(sent)).toBe(true);
  });

  it('pauses a fast upstream while the viewer does not read (bounded buffering)', async () => {
    const upstream = new FastSource();
    const [viewer, clientSide, server] = await socketPair();
    cleanups.push(() => {
      viewer.destroy();
      clientSide.destroy();
      upstream.destroy();
      server.close();
    });
    viewer.pause(); // a viewer that reads nothing
    void relay(clientSide, upstream, { onDownstream: () => undefined, onUpstream: () => undefined });
    // Wait until the source has been asked to stop (its buffer filled) and stays stopped.
    await waitFor(() => upstream.isPaused());
    const producedAtPause = upstream.produced;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 200));
    // What the source produced is bounded by socket buffers + stream high-water marks,
    // not by time: without backpressure it would keep producing without limit.
    expect(upstream.produced).toBeLessThan(64 * 1024 * 1024);
    expect(upstream.produced - producedAtPause).toBeLessThan(1024 * 1024);
    viewer.resume();
    await waitFor(() => upstream.produced > producedAtPause);
  });
});

/** A viewer that records the size of each chunk of every write it is given, one array per write call. */
class RecordingViewer extends Duplex {
  writes: number[][] = [];
  override _read(): void {}
  override _write(chunk: Buffer, _e: BufferEncoding, cb: () => void): void {
    this.writes.push([chunk.length]);
    cb();
  }
  override _writev(chunks: { chunk: Buffer }[], cb: () => void): void {
    this.writes.push(chunks.map((c) => c.chunk.length));
    cb();
  }
}

/** A source that produces 64 KiB chunks as fast as it is allowed to. */
class FastSource extends Duplex {
  produced = 0;
  override _read(): void {
    const chunk = Buffer.alloc(64 * 1024, 1);
    this.produced += chunk.length;
    setImmediate(() => this.push(chunk));
  }
  override _write(_c: Buffer, _e: BufferEncoding, cb: () => void): void {
    cb();
  }
}
