import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { splitTarget } from '../registry.js';
import { parseUnixTarget, unixProvider } from './provider.js';
import { readToEnd } from '../../../test/support/streams.js';

const resolve = (text: string) => unixProvider.resolve(splitTarget(text), {});
const context = () => ({ signal: AbortSignal.timeout(10_000), log: () => undefined });

describe('parseUnixTarget', () => {
  it('takes unix:///PATH and unix:/PATH', () => {
    expect(parseUnixTarget('unix:///run/vm/vnc.sock')).toBe('/run/vm/vnc.sock');
    expect(parseUnixTarget('unix:/run/vm/../vm/vnc.sock')).toBe('/run/vm/vnc.sock');
  });

  it.each(['unix://relative/vnc.sock', 'unix:vnc.sock', 'unix:', 'unix://', 'unix://host/run/x.sock'])(
    'refuses %s as a UsageError',
    (raw) => {
      expect(() => resolve(raw)).toThrow(UsageError);
    },
  );
});

describe('unix provider', () => {
  let dir: string;
  let server: net.Server;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-unix-'));
    server = net.createServer((socket) => socket.end('RFB 003.008\n'));
    await new Promise<void>((done) => server.listen(join(dir, 'vnc.sock'), done));
  });
  afterAll(async () => {
    await new Promise((done) => server.close(done));
    await rm(dir, { recursive: true, force: true });
  });

  it('dials the socket and reads the greeting; the pre-flight passes without connecting', async () => {
    const target = resolve(`unix://${join(dir, 'vnc.sock')}`);
    expect(target.name).toBe(`unix://${join(dir, 'vnc.sock')}`);
    const connections = await new Promise<number>((done) => server.getConnections((_err, count) => done(count)));
    await target.check?.(AbortSignal.timeout(10_000));
    expect(await new Promise<number>((done) => server.getConnections((_err, count) => done(count)))).toBe(connections);
    const socket = await target.dial(context());
    const greeting = await readToEnd(socket);
    expect(greeting).toBe('RFB 003.008\n');
  });

  it('fails the pre-flight, before anything listens, when the socket does not exist', async () => {
    const missing = join(dir, 'missing', 'vnc.sock');
    const check = resolve(`unix://${missing}`).check?.(AbortSignal.timeout(10_000));
    await expect(check).rejects.toThrow(/^no such socket$/);
  });

  it('fails the pre-flight when the path is not a socket', async () => {
    await writeFile(join(dir, 'plain-file'), '');
    await expect(resolve(`unix://${join(dir, 'plain-file')}`).check?.(AbortSignal.timeout(10_000))).rejects.toThrow(/^not a socket$/);
    await expect(resolve(`unix://${dir}`).check?.(AbortSignal.timeout(10_000))).rejects.toThrow(/^not a socket$/);
  });

  it('names the missing socket', async () => {
    await expect(resolve(`unix://${join(dir, 'gone.sock')}`).dial(context())).rejects.toThrow(/cannot connect: no such file or socket/);
  });
});
