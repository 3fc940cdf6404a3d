import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { attachTerminal } from './attach.js';
import { DEFAULT_ESCAPE } from './escape-key.js';

/** A real socket pair: `near` is the console stream vconsole holds, `far` is the VM's end. */
async function socketPair(): Promise<{ near: net.Socket; far: net.Socket; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const farPromise = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const near = net.connect(port, '127.0.0.1');
  const far = await farPromise;
  return {
    near,
    far,
    close: () => {
      near.destroy();
      far.destroy();
      server.close();
    },
  };
}

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  return () => text;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('attachTerminal', () => {
  it('carries bytes both ways, Ctrl+C included, and detaches on the escape without sending it', async () => {
    const pair = await socketPair();
    cleanups.push(pair.close);
    const input = new PassThrough();
    const output = new PassThrough();
    const screen = collect(output);
    const vmReceived = collect(pair.far);
    const attachment = attachTerminal({ input, output, console: pair.near, escape: DEFAULT_ESCAPE });

    pair.far.write('login: ');
    await until(() => screen() === 'login: ');
    input.write('root\r\x03');
    await until(() => vmReceived() === 'root\r\x03');
    input.write(Buffer.from([0x6c, 0x73, 0x1d, 0x78]));
    expect(await attachment.done).toEqual({ reason: 'escape' });
    await until(() => vmReceived().endsWith('ls'));
    expect(vmReceived()).toBe('root\r\x03ls');
    expect(pair.near.destroyed).toBe(false);
  });

  it('ends when the console closes, and passes the output to onOutput as it came', async () => {
    const pair = await socketPair();
    cleanups.push(pair.close);
    const logged: Buffer[] = [];
    const attachment = attachTerminal({ input: new PassThrough(), output: new PassThrough(), console: pair.near, onOutput: (c) => logged.push(c) });
    pair.far.end('\x1b[1mbye\x1b[0m\r\n');
    expect((await attachment.done).reason).toBe('console-closed');
    expect(Buffer.concat(logged).toString()).toBe('\x1b[1mbye\x1b[0m\r\n');
  });

  it('has no escape when none is given: every byte goes to the VM, the end of input ends it', async () => {
    const pair = await socketPair();
    cleanups.push(pair.close);
    const input = new PassThrough();
    const vmReceived = collect(pair.far);
    const attachment = attachTerminal({ input, output: new PassThrough(), console: pair.near });
    input.end(Buffer.from([0x1d, 0x41]));
    expect((await attachment.done).reason).toBe('input-ended');
    await until(() => vmReceived().length === 2);
    expect(vmReceived()).toBe('\x1dA');
  });

  it('stops reading the console while the terminal cannot keep up', async () => {
    const pair = await socketPair();
    cleanups.push(pair.close);
    const output = new PassThrough({ highWaterMark: 1024 });
    attachTerminal({ input: new PassThrough(), output, console: pair.near });
    const big = Buffer.alloc(64 * 1024 * 1024, 0x41);
    pair.far.write(big);
    await until(() => pair.near.isPaused());
    expect(output.readableLength).toBeLessThan(big.length);
    output.resume();
    await until(() => !pair.near.isPaused());
  });
});
