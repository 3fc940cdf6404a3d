import { describe, expect, it, vi } from 'vitest';
import { untilAborted } from './abort-race.js';

describe('untilAborted', () => {
  it("gives the promise's value while the signal holds, and an abort after that changes nothing", async () => {
    const controller = new AbortController();
    const onAbort = vi.fn();
    await expect(untilAborted(Promise.resolve(7), controller.signal, () => new Error('cancelled'), onAbort)).resolves.toBe(7);
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
  });

  it("rejects with the promise's own error", async () => {
    const failed = untilAborted(Promise.reject(new Error('refused')), new AbortController().signal, () => new Error('cancelled'));
    await expect(failed).rejects.toThrow('refused');
  });

  it('rejects with the reason and runs onAbort as soon as the signal aborts, the promise still pending', async () => {
    const controller = new AbortController();
    let rejectLater: (err: Error) => void = () => undefined;
    const pending = new Promise<number>((_resolve, reject) => (rejectLater = reject));
    const onAbort = vi.fn();
    const waiting = untilAborted(pending, controller.signal, () => new Error('cancelled'), onAbort);
    controller.abort();
    await expect(waiting).rejects.toThrow('cancelled');
    expect(onAbort).toHaveBeenCalledTimes(1);
    // Its own failure after the abort is not an unhandled rejection (vitest fails the run on one).
    rejectLater(new Error('late'));
  });

  it('rejects at once, onAbort run, when the signal had already aborted', async () => {
    const onAbort = vi.fn();
    await expect(untilAborted(new Promise(() => undefined), AbortSignal.abort(), () => new Error('cancelled'), onAbort)).rejects.toThrow(
      'cancelled',
    );
    expect(onAbort).toHaveBeenCalledTimes(1);
  });
});
