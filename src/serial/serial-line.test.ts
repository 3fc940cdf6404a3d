import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { ConsoleEndedError, ConsoleRefusedError, UsageError, VconsoleError } from '../errors.js';
import { SERIAL_MOVES, SerialLine, type SerialPhase } from './serial-line.js';
import { IllegalTransitionError, StateMachine } from '../state-machine/state-machine.js';
import type { DialContext, UpstreamSource } from '../proxy/types.js';

/** A VM serial port on 127.0.0.1 that can go away and come back on the same port. */
class FakeSerialPort {
  private server?: net.Server;
  readonly connections: net.Socket[] = [];
  port = 0;

  async up(): Promise<void> {
    const server = net.createServer((socket) => {
      this.connections.push(socket);
      socket.write(`hello ${this.connections.length}\r\n`);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  source(): UpstreamSource {
    return {
      name: 'vm-a',
      provider: 'test',
      facts: {},
      dial: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(this.port, '127.0.0.1', () => resolve(socket));
          socket.once('error', (err) => reject(new VconsoleError(`cannot connect: ${err.message}`)));
        }),
    };
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('SerialLine', () => {
  it('keeps reading while nobody is attached, into the scrollback', async () => {
    const port = new FakeSerialPort();
    await port.up();
    cleanups.push(() => port.down());
    const line = new SerialLine(port.source());
    cleanups.push(() => line.close());
    await line.start();
    await until(() => line.scrollback.contents().toString() === 'hello 1\r\n');
    expect(line.scrollback.unseenBytes).toBe(9);
  });

  it('without --wait, a dropped console ends the line with the reason', async () => {
    const port = new FakeSerialPort();
    await port.up();
    cleanups.push(() => port.down());
    const line = new SerialLine(port.source());
    await line.start();
    const ended = new Promise<Error | undefined>((resolve) => line.once('end', resolve));
    await until(() => port.connections.length === 1);
    port.connections[0].destroy();
    expect((await ended)?.message).toMatch(/the console closed/);
    expect(line.currentState).toBe('closed');
  });

  it('moves only as its table says: a closed line never opens again, nor goes back to connecting', () => {
    const closed = new StateMachine<SerialPhase>('SerialLine', SERIAL_MOVES, { kind: 'closed' });
    expect(() => closed.to({ kind: 'open', upstream: new PassThrough() })).toThrow(IllegalTransitionError);
    expect(closed.can('connecting')).toBe(false);
    expect(new StateMachine<SerialPhase>('SerialLine', SERIAL_MOVES, { kind: 'connecting' }).can('reconnecting')).toBe(false);
  });

  it('refuses a second start of an open line loudly, closing what that start dialled', async () => {
    const dialled: PassThrough[] = [];
    const line = new SerialLine({
      name: 'vm-a',
      provider: 'test',
      facts: {},
      dial: () => Promise.resolve(dialled[dialled.push(new PassThrough()) - 1]),
    });
    cleanups.push(() => line.close());
    await line.start();
    await expect(line.start()).rejects.toThrow(IllegalTransitionError);
    expect(dialled.map((stream) => stream.destroyed)).toEqual([false, true]);
    expect(line.currentState).toBe('open');
    expect(line.write(Buffer.from('x'))).toBe(true);
    // The first stream echoes: what was typed comes back as output.
    await until(() => line.scrollback.contents().toString() === 'x');
  });

  it('with --wait, reconnects when the console comes back and carries on', async () => {
    const port = new FakeSerialPort();
    await port.up();
    cleanups.push(() => port.down());
    const line = new SerialLine(port.source(), { waitMs: 60_000 });
    cleanups.push(() => line.close());
    const logs: string[] = [];
    line.on('log', (_level, message) => logs.push(message));
    await line.start();
    await port.down();
    await until(() => line.currentState === 'reconnecting');
    await port.up();
    await until(() => line.currentState === 'open');
    await until(() => line.scrollback.contents().toString().includes('hello 1\r\n'));
    expect(logs.some((l) => /the console closed; reconnecting/.test(l))).toBe(true);
    expect(logs).toContain('reconnected');
    expect(line.write(Buffer.from('x'))).toBe(true);
  });

  it('waits for a console that is not there yet, and gives up when the wait runs out', async () => {
    const port = new FakeSerialPort();
    await port.up();
    await port.down(); // a port nobody listens on now
    const line = new SerialLine(port.source(), { waitMs: 1_200 });
    const logs: string[] = [];
    line.on('log', (_level, message) => logs.push(message));
    await expect(line.start()).rejects.toThrow(/cannot connect/);
    expect(logs.filter((l) => /trying again/.test(l))).toHaveLength(1);
  });

  it('never retries a usage error', async () => {
    let dials = 0;
    const line = new SerialLine(
      {
        name: 'vm-a',
        provider: 'test',
        facts: {},
        dial: async () => {
          dials++;
          throw new UsageError('no serial console');
        },
      },
      { waitMs: 60_000 },
    );
    await expect(line.start()).rejects.toThrow(/no serial console/);
    expect(dials).toBe(1);
  });

  it('a refusal seen after the console was handed over ends the line in its own words, even with --wait', async () => {
    let dials = 0;
    const first = new PassThrough();
    const line = new SerialLine({ name: 'vm-a', provider: 'test', facts: {}, dial: async () => (dials++, first) }, { waitMs: 60_000 });
    const logs: string[] = [];
    line.on('log', (_level, message) => logs.push(message));
    const ended = new Promise<Error | undefined>((resolve) => line.once('end', resolve));
    await line.start();
    const refusal = new ConsoleRefusedError('the console was refused right after the upgrade');
    first.destroy(refusal);
    expect(await ended).toBe(refusal);
    expect(line.currentState).toBe('closed');
    expect(dials).toBe(1);
    expect(logs).toEqual([]);
  });

  it('tells the source a redial of its own is one, with how the console ended, and gives up when the source refuses it', async () => {
    const contexts: DialContext[] = [];
    const first = new PassThrough();
    const line = new SerialLine(
      {
        name: 'vm-a',
        provider: 'test',
        facts: {},
        dial: async (context) => {
          contexts.push(context);
          if (contexts.length === 1) return first;
          throw new ConsoleRefusedError('another client took the console');
        },
      },
      { waitMs: 60_000 },
    );
    const ended = new Promise<Error | undefined>((resolve) => line.once('end', resolve));
    await line.start();
    const ending = new ConsoleEndedError('the console closed');
    first.destroy(ending);
    expect((await ended)?.message).toBe('another client took the console');
    expect(contexts).toHaveLength(2);
    expect(contexts[0].reconnect).toBeUndefined();
    expect(contexts[1].reconnect).toEqual({ ending });
  });
});
