import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readBytes } from '../../test/support/streams.js';
import { duplexPair } from './duplex-pair.js';

describe('duplexPair', () => {
  it('carries bytes both ways', async () => {
    const [a, b] = duplexPair();
    a.write('ping');
    expect((await readBytes(b, 4)).toString()).toBe('ping');
    b.write('pong');
    expect((await readBytes(a, 4)).toString()).toBe('pong');
  });

  it('holds a writer back until the reader has room', async () => {
    const [a, b] = duplexPair();
    const chunk = Buffer.alloc(1024);
    let accepted = 0;
    while (accepted < 1000 && a.write(chunk)) accepted++;
    // Nobody reads b: a few buffers' worth get through, then the writer is told to wait.
    expect(accepted).toBeLessThan(100);
    b.resume();
    await once(a, 'drain');
  });

  it('ends the other side on end, and closes it on destroy', async () => {
    const [a, b] = duplexPair();
    b.resume();
    a.end();
    await once(b, 'end');
    const [c, d] = duplexPair();
    c.destroy();
    await once(d, 'close');
    expect(d.destroyed).toBe(true);
  });
});
