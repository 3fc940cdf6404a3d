// A compressed rectangle's payload is taken from the queue of received bytes: a big one as the
// buffer it came in (no second copy of a screen's worth), a small one copied out.
import { describe, expect, it } from 'vitest';
import { ByteQueue } from '../../wire/byte-queue.js';
import { lengthPrefixed } from './inflation.js';

function prefixed(payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

describe('lengthPrefixed', () => {
  it('takes a big payload as the received buffer itself, not a copy', () => {
    const queue = new ByteQueue();
    const chunk = prefixed(Buffer.alloc(256 * 1024, 7));
    queue.push(chunk);
    const payload = lengthPrefixed(queue, 1 << 20, 'test');
    expect(payload?.length).toBe(256 * 1024);
    expect(payload?.buffer).toBe(chunk.buffer);
    expect(queue.length).toBe(0);
  });

  it('copies a small payload out, so it keeps no received chunk alive', () => {
    const queue = new ByteQueue();
    const chunk = Buffer.concat([prefixed(Buffer.from('abc')), Buffer.alloc(64 * 1024)]);
    queue.push(chunk);
    const payload = lengthPrefixed(queue, 1 << 20, 'test');
    expect(payload?.toString()).toBe('abc');
    expect(payload?.buffer).not.toBe(chunk.buffer);
    expect(queue.length).toBe(64 * 1024);
  });

  it('waits for the whole payload, and refuses one longer than its limit before buffering it', () => {
    const queue = new ByteQueue();
    const whole = prefixed(Buffer.alloc(100_000, 1));
    queue.push(whole.subarray(0, 50_000));
    expect(lengthPrefixed(queue, 1 << 20, 'test')).toBeUndefined();
    queue.push(whole.subarray(50_000));
    expect(lengthPrefixed(queue, 1 << 20, 'test')?.length).toBe(100_000);
    queue.push(prefixed(Buffer.alloc(10)));
    expect(() => lengthPrefixed(queue, 5, 'Zlib')).toThrow(/Zlib rectangle announces 10 bytes/);
  });
});
