import { describe, expect, it } from 'vitest';
import { Scrollback } from './scrollback.js';

describe('Scrollback', () => {
  it('keeps the last bytes a console printed, oldest first', () => {
    const ring = new Scrollback(10);
    ring.write(Buffer.from('hello '));
    ring.write(Buffer.from('world!'));
    expect(ring.contents().toString()).toBe('llo world!');
    expect(ring.length).toBe(10);
  });

  it('keeps only the tail of a chunk larger than itself', () => {
    const ring = new Scrollback(4);
    ring.write(Buffer.from('abcdefgh'));
    expect(ring.contents().toString()).toBe('efgh');
  });

  it('counts output nobody has seen until it is marked seen', () => {
    const ring = new Scrollback(4);
    ring.write(Buffer.from('abcdef'));
    expect(ring.unseenBytes).toBe(6);
    ring.markSeen();
    expect(ring.unseenBytes).toBe(0);
    ring.write(Buffer.from('g'));
    expect(ring.unseenBytes).toBe(1);
    expect(ring.contents().toString()).toBe('defg');
  });

  it('stays bounded under a flood', () => {
    const ring = new Scrollback(1024);
    for (let i = 0; i < 10_000; i++) ring.write(Buffer.alloc(100, i % 256));
    expect(ring.length).toBe(1024);
    expect(ring.contents().length).toBe(1024);
  });
});
