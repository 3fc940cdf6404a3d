import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

// `vconsole console tcp://HOST:PORT` on a VNC server: the server speaks first with its RFB
// version line, which must be named for what it is (a screen), not printed with exit 0.

const servers: net.Server[] = [];
afterEach(() => {
  while (servers.length) servers.pop()!.close();
});

/** A peer that says `first` on connect and hangs up shortly after, like a VNC server given no answer. */
async function peerSaying(first: string): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.write(first);
    setTimeout(() => socket.end(), 200);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('console on a bare tcp target', () => {
  it('a VNC greeting: one line saying it is a screen and how to open it, exit 1, nothing on stdout', async () => {
    const port = await peerSaying('RFB 003.008\n');
    const result = await runVconsole(['console', `tcp://127.0.0.1:${port}`]);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('is a VNC screen');
    expect(lines[0]).toContain(`vconsole open tcp://127.0.0.1:${port}`);
  });

  it('a serial line whose first bytes only look like a greeting is shown as it is', async () => {
    const port = await peerSaying('RFB login: \n');
    const result = await runVconsole(['console', `tcp://127.0.0.1:${port}`]);
    expect(result.stdout).toBe('RFB login: \n');
    expect(result.stderr).not.toContain('VNC screen');
  });
});
