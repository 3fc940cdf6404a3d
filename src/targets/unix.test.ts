import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { splitTarget } from './index.js';
import { parseUnixTarget, unixProvider } from './unix.js';
import { readToEnd } from '../../test/support/streams.js';

const resolve = (text: string) => unixProvider.resolve(splitTarget(text), {});
const context = () => ({ signal: AbortSignal.timeout(10_000), log: () => undefined });

describe('parseUnixTarget', () => {
  it('takes unix:///PATH and unix:/PATH', () => {
    expect(parseUnixTarget('unix:///run/vm/vnc.sock')).toBe('/run/vm/vnc.sock');
    expect(parseUnixTarget('unix:/run/vm/../vm/vnc.sock')).toBe('/run/vm/vnc.sock');
  });

  it.each(['unix://relative/vnc.sock', 'unix:vnc.sock', 'unix:', 'unix://', 'unix://host/run/x.sock'])('refuses %s as a UsageError', (raw) => {
    expect(() => resolve(raw)).toThrow(UsageError);
  });
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

  it('dials the socket and reads the greeting; no pre-flight connect', async () => {
    const target = resolve(`unix://${join(dir, 'vnc.sock')}`);
    expect(target.name).toBe(`unix://${join(dir, 'vnc.sock')}`);
    expect(target.check).toBeUndefined();
    const socket = await target.dial(context());
    const greeting = await readToEnd(socket);
    expect(greeting).toBe('RFB 003.008\n');
  });

  it('names the missing socket', async () => {
    await expect(resolve(`unix://${join(dir, 'gone.sock')}`).dial(context())).rejects.toThrow(/cannot connect: no such file or socket/);
  });
});
