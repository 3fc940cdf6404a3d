import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { handleShutdownSignals } from './shutdown.js';

function setup(close: () => Promise<void>) {
  const target = new EventEmitter();
  const exits: number[] = [];
  let closes = 0;
  const handle = handleShutdownSignals({
    close: () => {
      closes++;
      return close();
    },
    exit: (code) => exits.push(code),
    target: target as unknown as NodeJS.Process,
  });
  return { target, exits, handle, closes: () => closes };
}

describe('handleShutdownSignals', () => {
  it('closes everything on the first signal, then exits 0', async () => {
    const { target, exits, handle, closes } = setup(async () => undefined);
    target.emit('SIGTERM');
    await handle.shutdown();
    expect(closes()).toBe(1);
    expect(exits).toEqual([0]);
  });

  it('exits at once on a second signal while closing hangs', async () => {
    const { target, exits, closes } = setup(() => new Promise(() => undefined));
    target.emit('SIGINT');
    expect(exits).toEqual([]);
    target.emit('SIGINT');
    expect(exits).toEqual([130]);
    expect(closes()).toBe(1);
  });

  it('a key that acts like a signal (q, Ctrl+C in raw mode) behaves the same', async () => {
    const { exits, handle } = setup(() => new Promise(() => undefined));
    handle.trigger();
    handle.trigger();
    expect(exits).toEqual([130]);
  });

  it('stops listening once disposed', () => {
    const { target, exits, handle, closes } = setup(async () => undefined);
    handle.dispose();
    target.emit('SIGHUP');
    expect(closes()).toBe(0);
    expect(exits).toEqual([]);
  });
});
