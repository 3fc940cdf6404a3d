import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { WebSocketServer } from 'ws';
import { readGreeting } from '../support/cli.js';
import { test } from '../support/fixtures.js';

/** Some console proxies put the ticket in the path: it must never be printed. */
const TOKEN = '7f3a9c0e5b2d4f6a8c1e3b5d7f9a0c2e4b6d8f0a';
const WRONG = '0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c';

let proxy: WebSocketServer;
let port: number;
beforeAll(async () => {
  // A websockify look-alike: the right ticket gets an RFB greeting, any other path a 403.
  proxy = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (info: { req: { url?: string } }) => info.req.url === `/websockify/${TOKEN}`,
  });
  proxy.on('connection', (ws) => ws.send(Buffer.from('RFB 003.008\n')));
  await once(proxy, 'listening');
  port = (proxy.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => proxy.close(() => done())));
const it = test.extend('start', ({ vconsole }) => {
  return (url: string) => vconsole.start(['proxy', url, '--verbose']);
});

describe('a websocket URL with a token in its path', () => {
  it('relays the console and never prints the token (stdout JSON, stderr logs)', async ({ start }) => {
    const p = start(`ws://127.0.0.1:${port}/websockify/${TOKEN}`);
    const [line] = await p.jsonLines(1);
    expect(line.target).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/websockify/\\*\\*\\* \\[[0-9a-f]{6}\\]$`));
    const { text, socket } = await readGreeting(line.port as number);
    expect(text).toBe('RFB 003.008\n');
    socket.destroy();
    await p.stop();
    expect(p.stdout() + p.stderr()).not.toContain(TOKEN);
  });

  it('keeps the token out of the refusal too', async ({ start }) => {
    const p = start(`ws://127.0.0.1:${port}/websockify/${WRONG}`);
    const [line] = await p.jsonLines(1);
    // The viewer is hung up on once the proxy refuses the ticket.
    const viewer = net.connect(line.port as number, '127.0.0.1');
    viewer.on('error', () => undefined);
    await once(viewer, 'close');
    await p.waitForStderr(/refused|rejected/);
    await p.stop();
    expect(p.stdout() + p.stderr()).not.toContain(WRONG);
  });
});
