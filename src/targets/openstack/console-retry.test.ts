import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { duplexPair } from '../../streams/duplex-pair.js';
import { readBytes, readToEnd } from '../../../test/support/streams.js';
import { retryIfRefused } from './console-retry.js';

// The console a serial or SPICE client gets from Nova: refused right after the upgrade, it is
// dialled again once; once the VM has spoken, it ends as the VM's console ends.

function consoles(count: number): { near: Duplex; far: Duplex }[] {
  return Array.from({ length: count }, () => {
    const [near, far] = duplexPair();
    return { near, far };
  });
}

describe('retryIfRefused', () => {
  it('dials again when the console ends before a byte, and the fresh one gets what the client sent', async () => {
    const [refused, fresh] = consoles(2);
    let redials = 0;
    const stream = retryIfRefused(refused.near, { redial: async () => (redials++, fresh.near), refused: () => new Error('refused') });
    stream.write('REDQ');
    expect((await readBytes(refused.far, 4)).toString()).toBe('REDQ');
    refused.far.end();
    expect((await readBytes(fresh.far, 4)).toString()).toBe('REDQ');
    fresh.far.write('answer');
    expect((await readBytes(stream, 6)).toString()).toBe('answer');
    expect(redials).toBe(1);
    stream.destroy();
  });

  it('reports the refusal when the fresh console ends the same way', async () => {
    const [refused, fresh] = consoles(2);
    const stream = retryIfRefused(refused.near, { redial: async () => fresh.near, refused: () => new Error('refused twice') });
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    fresh.far.end();
    refused.far.end();
    expect((await failed).message).toBe('refused twice');
  });

  it('passes the end on once the VM has spoken: no second console', async () => {
    const [only] = consoles(1);
    let redials = 0;
    const stream = retryIfRefused(only.near, { redial: async () => (redials++, only.near), refused: () => new Error('refused') });
    only.far.end('login: ');
    expect(await readToEnd(stream)).toBe('login: ');
    expect(redials).toBe(0);
  });

  it('passes the end on when the console closes after the refusal window', async () => {
    const [only] = consoles(1);
    let clock = 0;
    let redials = 0;
    const stream = retryIfRefused(only.near, {
      redial: async () => (redials++, only.near),
      refused: () => new Error('refused'),
      now: () => clock,
    });
    clock = 60_000;
    only.far.end();
    expect(await readToEnd(stream)).toBe('');
    expect(redials).toBe(0);
  });

  it('once the VM has spoken, fails with how the console ended when that follows the end (a websocket close reason)', async () => {
    const [only] = consoles(1);
    const stream = retryIfRefused(only.near, { redial: async () => only.near, refused: () => new Error('refused') });
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    only.far.write('login: ');
    expect((await readBytes(stream, 7)).toString()).toBe('login: ');
    // As WebSocketStream ends: the readable side first, then the stream fails with the reason.
    only.far.end();
    only.near.once('end', () => only.near.destroy(new Error('the console closed: Target closed (the VM stopped?)')));
    stream.resume();
    expect((await failed).message).toBe('the console closed: Target closed (the VM stopped?)');
    await closed;
  });

  it('once the VM has spoken, closes when the console closes after its end without a word', async () => {
    const [only] = consoles(1);
    const stream = retryIfRefused(only.near, { redial: async () => only.near, refused: () => new Error('refused') });
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    stream.on('error', () => undefined);
    only.far.write('login: ');
    expect((await readBytes(stream, 7)).toString()).toBe('login: ');
    only.far.end();
    only.near.once('end', () => only.near.destroy());
    stream.resume();
    await closed;
  });
});
