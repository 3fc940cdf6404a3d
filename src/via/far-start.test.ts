import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FarStart } from './far-start.js';
import { AGENT_PREAMBLE, PREAMBLE_SEARCH_BYTES } from './protocol.js';

const watch = (lastSaid = '') => ({ host: 'jump', loginMs: 1000, helloMs: 5000, lastSaid: () => lastSaid });
const never = new Promise<never>(() => undefined);

afterEach(() => {
  vi.useRealTimers();
});

describe('FarStart', () => {
  it("skips a login's banner and passes on what follows the preamble, even split across chunks", async () => {
    const stdout = new PassThrough();
    const start = new FarStart(stdout, watch());
    const received: Buffer[] = [];
    start.input.on('data', (chunk: Buffer) => received.push(chunk));
    stdout.write('Welcome\nvconsole-via');
    stdout.write(`${AGENT_PREAMBLE.slice('vconsole-via'.length)}\x01\x02`);
    stdout.write('\x03');
    await new Promise((resolve) => setImmediate(resolve));
    expect(Buffer.concat(received)).toEqual(Buffer.from([1, 2, 3]));
    start.stop();
    expect(start.failure).toBeUndefined();
  });

  it('gives up at once, quoting its first line, when the bastion prints more than the bound without the preamble', async () => {
    const stdout = new PassThrough();
    const start = new FarStart(stdout, watch());
    const waiting = start.until(never);
    stdout.write('\x1b[1mMessage of the day\x1b[0m\n');
    stdout.write(Buffer.alloc(PREAMBLE_SEARCH_BYTES, 'x'));
    await expect(waiting).rejects.toThrow(/^jump printed 64 KiB \("\\e\[1mMessage of the day\\e\[0m"\) and no vconsole agent started$/);
  });

  it('names the phase that ran out: the login (with what ssh said), the far vconsole starting, its hello', async () => {
    vi.useFakeTimers();
    const silent = new FarStart(new PassThrough(), watch('debug1: Connecting to jump'));
    const login = silent.until(never);
    vi.advanceTimersByTime(1000);
    await expect(login).rejects.toThrow(
      'ssh to jump gave nothing back within 1s (connecting, logging in, starting vconsole there): debug1: Connecting to jump',
    );

    const banner = new PassThrough();
    const starting = expect(new FarStart(banner, watch()).until(never)).rejects.toThrow(
      'jump printed 16 bytes ("Last login") but no vconsole agent started within 5s',
    );
    banner.write('Last login\n');
    await vi.advanceTimersByTimeAsync(4999);
    banner.write(AGENT_PREAMBLE.slice(0, 5));
    await vi.advanceTimersByTimeAsync(1);
    await starting;

    const agent = new PassThrough();
    const hello = expect(new FarStart(agent, watch()).until(never)).rejects.toThrow(
      'the vconsole agent on jump did not say hello within 5s',
    );
    agent.write(AGENT_PREAMBLE);
    await vi.advanceTimersByTimeAsync(5000);
    await hello;
  });
});
