import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameReader, FrameType, HEADER_BYTES, MAX_DATA_BYTES, ViaProtocolError, encodeFrame, encodeJsonFrame } from './frames.js';
import { ViaConnection, type FarHandlers } from './connection.js';
import { STREAM_WINDOW_BYTES, type MuxStream } from './mux-stream.js';

/** A near and a far connection over two in-memory pipes. */
function connected(far: FarHandlers) {
  const nearToFar = new PassThrough();
  const farToNear = new PassThrough();
  const near = new ViaConnection(farToNear, nearToFar, { lost: () => new Error('lost') });
  const farEnd = new ViaConnection(nearToFar, farToNear, { far, lost: () => new Error('lost') });
  return { near, far: farEnd, nearToFar, farToNear };
}

const echo: FarHandlers = {
  request: (op, body) => Promise.resolve({ op, echoed: body.value }),
  open: (_body, stream) => {
    stream.pipe(stream);
    return Promise.resolve();
  },
};

function readBytes(stream: MuxStream, count: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= count) {
        stream.off('data', onData);
        resolve(Buffer.concat(chunks));
      }
    };
    stream.on('data', onData);
  });
}

function closedWith(connection: ViaConnection): Promise<Error> {
  return new Promise((resolve) => connection.once('closed', resolve));
}

describe('FrameReader', () => {
  it('refuses a header announcing more than its type may carry, before buffering any of it', () => {
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt8(FrameType.data, 0);
    header.writeUInt32BE(1, 1);
    header.writeUInt32BE(0xffffffff, 5);
    expect(() => new FrameReader().push(header)).toThrow(ViaProtocolError);
  });

  it('refuses an unknown frame type', () => {
    expect(() => new FrameReader().push(Buffer.from([0xee, 0, 0, 0, 1, 0, 0, 0, 0]))).toThrow(/unknown frame type/);
  });

  it('puts frames split anywhere back together, byte by byte', () => {
    const bytes = Buffer.concat([encodeJsonFrame(FrameType.hello, 0, { protocol: 1 }), encodeFrame(FrameType.data, 7, Buffer.from('abc'))]);
    const reader = new FrameReader();
    const frames = [...bytes].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(frames.map((f) => [f.type, f.stream, f.payload.toString()])).toEqual([
      [FrameType.hello, 0, '{"protocol":1}'],
      [FrameType.data, 7, 'abc'],
    ]);
  });
});

describe('ViaConnection', () => {
  it('answers requests and carries a stream both ways, more than a window of it', async () => {
    const { near, far } = connected(echo);
    far.sayHello({ protocol: 1, version: 'x' });
    await expect(near.hello()).resolves.toEqual({ protocol: 1, version: 'x' });
    await expect(near.request('ping', { value: 42 })).resolves.toEqual({ op: 'ping', echoed: 42 });
    const stream = await near.open({});
    const sent = Buffer.alloc(STREAM_WINDOW_BYTES * 3, 7);
    const back = readBytes(stream, sent.length);
    stream.write(sent);
    expect((await back).equals(sent)).toBe(true);
  });

  it('ignores data and credit for streams it does not know, and goes on', async () => {
    const { near, farToNear } = connected(echo);
    farToNear.write(encodeFrame(FrameType.data, 999, Buffer.from('stray')));
    const credit = Buffer.alloc(4);
    credit.writeUInt32BE(1000, 0);
    farToNear.write(encodeFrame(FrameType.credit, 12345, credit));
    await expect(near.request('ping', { value: 1 })).resolves.toEqual({ op: 'ping', echoed: 1 });
    expect(near.closed).toBe(false);
  });

  it('ends the connection when a frame announces a huge length, failing every stream with why', async () => {
    const { near, farToNear } = connected(echo);
    const stream = await near.open({});
    const streamError = new Promise<Error>((resolve) => stream.once('error', resolve));
    const ended = closedWith(near);
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt8(FrameType.reply, 0);
    header.writeUInt32BE(0xfffffff0, 5);
    farToNear.write(header);
    expect((await ended).message).toMatch(/broke its protocol: .*over its limit/);
    expect((await streamError).message).toMatch(/broke its protocol/);
  });

  it('ends the connection when a peer floods a stream beyond its window, holding no more than the window', async () => {
    let farStream: MuxStream | undefined;
    const { near, farToNear } = connected({ ...echo, open: (_b, stream) => ((farStream = stream), Promise.resolve()) });
    const stream = await near.open({});
    stream.pause(); // nobody reads here
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    const ended = closedWith(near);
    const chunk = Buffer.alloc(MAX_DATA_BYTES, 1);
    let sent = 0;
    while (!near.closed && sent < STREAM_WINDOW_BYTES * 4) {
      farToNear.write(encodeFrame(FrameType.data, farStream?.id ?? 1, chunk));
      sent += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await ended).message).toMatch(/beyond the window/);
    expect((await failed).message).toMatch(/beyond the window/);
    expect(stream.readableLength).toBeLessThanOrEqual(STREAM_WINDOW_BYTES);
  });

  it('keeps a stream nobody reads from holding back another, and from growing past its window', async () => {
    const streams: MuxStream[] = [];
    const firehose: FarHandlers = {
      ...echo,
      open: (body, stream) => {
        streams.push(stream);
        if (body.kind === 'firehose') {
          const chunk = Buffer.alloc(64 * 1024, 3);
          const pour = () => {
            while (stream.write(chunk));
          };
          stream.on('drain', pour);
          pour();
        } else stream.pipe(stream);
        return Promise.resolve();
      },
    };
    const { near } = connected(firehose);
    const unread = await near.open({ kind: 'firehose' });
    unread.pause();
    unread.on('error', () => undefined); // the connection outlives the test
    const busy = await near.open({ kind: 'echo' });
    const answer = readBytes(busy, 5);
    busy.write('hello');
    expect((await answer).toString()).toBe('hello');
    expect(unread.readableLength).toBeLessThanOrEqual(STREAM_WINDOW_BYTES);
    // The far side holds its writes back too: its queue is the stream's own buffer, not a growing one.
    expect(streams[0].writableLength).toBeLessThanOrEqual(STREAM_WINDOW_BYTES);
  });

  it('fails an open with the far error, and closing one side ends the other side of the stream', async () => {
    const { near } = connected({
      ...echo,
      open: (body) => (body.fail ? Promise.reject(new Error('no such VM')) : Promise.resolve()),
    });
    await expect(near.open({ fail: true })).rejects.toThrow('no such VM');
    const stream = await near.open({});
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    const closed = new Promise((resolve) => stream.once('close', resolve));
    near.close(new Error('connection to bastion lost'));
    await closed;
    expect((await failed).message).toBe('connection to bastion lost');
  });

  it('answers a request whose reply would be over the frame limit with an error saying so', async () => {
    const { near } = connected({ ...echo, request: () => Promise.resolve('x'.repeat(2 * 1024 * 1024)) });
    await expect(near.request('list')).rejects.toThrow(/the answer to "list" is over 1024 KiB/);
    await expect(near.request('list')).rejects.toThrow(/over/);
  });

  it("caps a far side's log line, so a peer cannot hand the screen a document", async () => {
    const { near } = connected({
      ...echo,
      open: (_body, _stream, log) => {
        log('warn', 'y'.repeat(100_000));
        return Promise.resolve();
      },
    });
    const lines: string[] = [];
    await near.open({}, (_level, message) => lines.push(message));
    expect(lines).toHaveLength(1);
    expect(lines[0].length).toBe(500);
  });
});
