// A client's zlib stream changes its compress level while rectangles are being compressed on it
// (a SetEncodings comes in the middle of an update): what it sends must still inflate, on one
// stream, to exactly what was written. Node's zlib applies params() from a flush's callback,
// after the next buffered write was already handed to the thread pool: a level changed while
// another write followed it raced that write (corrupt bytes, or a crash of the process).
import { randomBytes } from 'node:crypto';
import { constants, createInflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DeflateStream } from './deflate-stream.js';

/** Inflates `parts` in order on one stream, as a client does, each up to its sync flush. */
async function inflateInOrder(parts: Buffer[]): Promise<Buffer> {
  const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  const out: Buffer[] = [];
  inflate.on('data', (chunk: Buffer) => out.push(chunk));
  for (const part of parts) {
    inflate.write(part);
    await new Promise<void>((resolve) => inflate.flush(constants.Z_SYNC_FLUSH, resolve));
  }
  inflate.destroy();
  return Buffer.concat(out);
}

describe('DeflateStream.setLevel', () => {
  it('changes level between rectangles still being compressed, and every byte inflates as written', async () => {
    const stream = new DeflateStream(6);
    // Pictures that do not deflate (random): each keeps the thread pool busy long enough to be
    // in flight when the next level change lands.
    const written = Array.from({ length: 40 }, () => randomBytes(128 * 1024));
    const compressed: Promise<Buffer>[] = [];
    written.forEach((data, i) => {
      compressed.push(stream.compress(data));
      stream.setLevel(i % 2 === 0 ? 1 : 9);
    });
    const parts = await Promise.all(compressed);
    stream.close();
    expect((await inflateInOrder(parts)).equals(Buffer.concat(written))).toBe(true);
  });

  it('lets a write and flush made while a level change is under way wait for it, in order', async () => {
    const stream = new DeflateStream(6);
    stream.setLevel(1);
    stream.write(Buffer.from('first '));
    stream.setLevel(9);
    stream.write(Buffer.from('second'));
    const part = await stream.flush();
    stream.close();
    expect((await inflateInOrder([part])).toString()).toBe('first second');
  });

  it('fails a flush waiting for a level change when the stream is closed', async () => {
    const stream = new DeflateStream(6);
    stream.write(randomBytes(64 * 1024));
    stream.setLevel(1);
    stream.write(Buffer.from('late'));
    const flushed = stream.flush();
    stream.close();
    await expect(flushed).rejects.toThrow(/closed/);
  });
});
