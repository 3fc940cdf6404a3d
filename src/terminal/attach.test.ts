import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SerialLine } from '../serial/serial-line.js';
import { attachTerminal } from './attach.js';
import { DEFAULT_ESCAPE } from './escape-key.js';

/** A serial line over a real socket: `vm()` is the VM's end of the line once dialled. */
async function serialOverSocket(): Promise<{ line: SerialLine; vm: () => Promise<net.Socket>; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const vm = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const line = new SerialLine({
    name: 'vm-a',
    provider: 'test',
    facts: {},
    dial: () =>
      new Promise((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
  });
  await line.start();
  return {
    line,
    vm: () => vm,
    close: () => {
      line.close();
      server.close();
      void vm.then((s) => s.destroy());
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
    const serial = await serialOverSocket();
    cleanups.push(serial.close);
    const vm = await serial.vm();
    const input = new PassThrough();
    const output = new PassThrough();
    const screen = collect(output);
    const vmReceived = collect(vm);
    const attachment = attachTerminal({ input, output, line: serial.line, escape: DEFAULT_ESCAPE });

    vm.write('login: ');
    await until(() => screen() === 'login: ');
    input.write('root\r\x03');
    await until(() => vmReceived() === 'root\r\x03');
    input.write(Buffer.from([0x6c, 0x73, 0x1d, 0x78]));
    expect(await attachment.done).toEqual({ reason: 'escape' });
    await until(() => vmReceived().endsWith('ls'));
    expect(vmReceived()).toBe('root\r\x03ls');
    expect(serial.line.currentState).toBe('open');
  });

  it('replays what the VM printed while detached, then goes on live', async () => {
    const serial = await serialOverSocket();
    cleanups.push(serial.close);
    const vm = await serial.vm();
    vm.write('kernel panic\r\n');
    await until(() => serial.line.scrollback.length === 14);
    const output = new PassThrough();
    const screen = collect(output);
    attachTerminal({ input: new PassThrough(), output, line: serial.line, replay: serial.line.scrollback.contents() });
    vm.write('login: ');
    await until(() => screen() === 'kernel panic\r\nlogin: ');
  });

  it('ends when the console closes', async () => {
    const serial = await serialOverSocket();
    cleanups.push(serial.close);
    const attachment = attachTerminal({ input: new PassThrough(), output: new PassThrough(), line: serial.line });
    (await serial.vm()).end('bye\r\n');
    const result = await attachment.done;
    expect(result.reason).toBe('console-closed');
    expect(result.error?.message).toMatch(/the console closed/);
  });

  it('has no escape when none is given: every byte goes to the VM, the end of input ends it', async () => {
    const serial = await serialOverSocket();
    cleanups.push(serial.close);
    const vmReceived = collect(await serial.vm());
    const input = new PassThrough();
    const attachment = attachTerminal({ input, output: new PassThrough(), line: serial.line });
    input.end(Buffer.from([0x1d, 0x41]));
    expect((await attachment.done).reason).toBe('input-ended');
    await until(() => vmReceived().length === 2);
    expect(vmReceived()).toBe('\x1dA');
  });
});
