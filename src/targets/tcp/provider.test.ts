import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, describeError } from '../../errors.js';
import { splitTarget } from '../registry.js';
import { parseTcpTarget, tcpProvider } from './provider.js';
import { readToEnd } from '../../../test/support/streams.js';
import { thrownBy } from '../../../test/support/thrown.js';

const resolve = (text: string) => tcpProvider.resolve(splitTarget(text), {});
const context = () => ({ signal: AbortSignal.timeout(10_000), log: () => undefined });

describe('parseTcpTarget', () => {
  it.each([
    ['tcp://127.0.0.1:5900', { host: '127.0.0.1', port: 5900 }],
    ['tcp://vm-host.example:5901/', { host: 'vm-host.example', port: 5901 }],
    ['tcp://[::1]:5900', { host: '::1', port: 5900 }],
    ['TCP://[fd00::1:2]:6000', { host: 'fd00::1:2', port: 6000 }],
  ])('%s', (raw, address) => {
    expect(parseTcpTarget(raw, 'tcp')).toEqual(address);
  });

  it('reads libvirt vnc://HOST:DISPLAY as port 5900 + display', () => {
    expect(parseTcpTarget('vnc://127.0.0.1:0', 'vnc')).toEqual({ host: '127.0.0.1', port: 5900 });
    expect(parseTcpTarget('vnc://h:3', 'vnc')).toEqual({ host: 'h', port: 5903 });
    expect(parseTcpTarget('vnc://h:5905', 'vnc')).toEqual({ host: 'h', port: 5905 });
  });

  it.each([
    'tcp://127.0.0.1',
    'tcp://127.0.0.1:',
    'tcp://127.0.0.1:0',
    'tcp://127.0.0.1:70000',
    'tcp://127.0.0.1:59x0',
    'tcp://::1:5900',
    'tcp://host:5900/path',
    'tcp://user@host:5900',
    'tcp:127.0.0.1:5900',
    'tcp://:5900',
  ])('refuses %s as a UsageError', (raw) => {
    expect(() => resolve(raw)).toThrow(UsageError);
  });

  it('refuses a host longer than a DNS name, echoing a capped part of it', () => {
    const message = describeError(thrownBy(() => resolve(`tcp://${'a'.repeat(10_000)}:5900`)));
    expect(message).toMatch(/^bad tcp target "tcp:\/\/a+\.\.\.": the host is longer than 253 characters; use tcp:\/\//);
    expect(message.length).toBeLessThan(250);
  });

  it('says what is wrong and what to type', () => {
    expect(describeError(thrownBy(() => resolve('tcp://127.0.0.1')))).toBe(
      'bad tcp target "tcp://127.0.0.1": missing port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:5900 or tcp://[::1]:5900',
    );
  });
});

describe('tcp provider', () => {
  let server: net.Server;
  let port: number;
  let accepted = 0;
  beforeAll(async () => {
    server = net.createServer((socket) => {
      accepted++;
      socket.end('RFB 003.008\n');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('connects a fresh socket per dial and has no pre-flight connect', async () => {
    const target = resolve(`tcp://127.0.0.1:${port}`);
    expect(target.name).toBe(`tcp://127.0.0.1:${port}`);
    expect(target.check).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const socket = await target.dial(context());
      const greeting = await readToEnd(socket);
      expect(greeting).toBe('RFB 003.008\n');
    }
    expect(accepted).toBe(2);
  });

  it('names the console when nobody listens', async () => {
    const closed = net.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    await expect(resolve(`tcp://127.0.0.1:${freePort}`).dial(context())).rejects.toThrow(
      `cannot connect: connection refused by 127.0.0.1:${freePort}`,
    );
  });
});
