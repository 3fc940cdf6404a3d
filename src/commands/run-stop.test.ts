// A `run` step that runs out of time stops its work: a long `type` on a screen sends no key after
// its timeout, lets go of the Shift it held, and closes its connection; the script of that console
// ends there (its next step never comes) while another console's script goes on to its end.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../../test/support/fake-rfb-server.js';
import { answeringTerminal } from '../../test/support/prompt-terminal.js';
import { waitFor } from '../../test/support/wait.js';
import { parseConfig } from '../config/config.js';
import { runRunCommand } from './run.js';

/** A screen that takes keysyms: every key event it got (`+41`, `-ffe1`), and whether its clients are gone. */
async function keyCountingScreen() {
  const keys: string[] = [];
  let open = 0;
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    open++;
    peer.socket.once('close', () => open--);
    await serveHandshake(peer, 8, 8);
    peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(8 * 8 * 4, 0x40) }]));
    for (;;) {
      const type = (await peer.read(1))[0];
      if (type === 3) await peer.read(9);
      else if (type === 4) {
        const body = await peer.read(7);
        keys.push(`${body[0] ? '+' : '-'}${body.readUInt32BE(3).toString(16)}`);
      } else throw new Error(`unexpected client message ${type}`);
    }
  });
  return { server, keys, open: () => open, target: `tcp://127.0.0.1:${server.port}` };
}

/** A raw TCP serial line that takes bytes as fast as they come: what it got. */
async function byteCountingLine() {
  let got = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => {
    sockets.forEach((socket) => socket.destroy());
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { got: () => got, close, target: `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}#serial` };
}

/** What is still held down: each keysym pressed more often than let go. */
function stillDown(keys: readonly string[]): string[] {
  const down = new Map<string, number>();
  for (const key of keys) down.set(key.slice(1), (down.get(key.slice(1)) ?? 0) + (key[0] === '+' ? 1 : -1));
  return [...down].filter(([, n]) => n !== 0).map(([keysym]) => keysym);
}

describe('a run step that times out', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-run-stop-'));
    vi.stubEnv('XDG_STATE_HOME', dir);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops typing: no key after its timeout, Shift let go, the connection closed; that console stops, the other finishes', async () => {
    const screen = await keyCountingScreen();
    const line = await byteCountingLine();
    try {
      // 2000 capitals: Shift held over them and 4000 key events, about 48 s at the typing pace.
      const text = 'ABCDEFGHIJ'.repeat(200);
      const file = path.join(dir, 'long.yaml');
      fs.writeFileSync(file, `- type: "${text}"\n  timeout: 5s\n- type: "z"\n`);
      const serial = line.target;
      let said = '';
      let keysAtTimeout: number | undefined;
      const stderr = new PassThrough();
      stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (keysAtTimeout === undefined && said.includes(`${screen.target} step 1/2`)) keysAtTimeout = screen.keys.length;
      });
      const io = { stdout: new PassThrough(), stderr, exit: () => undefined };
      const config = await parseConfig('', 'c.yaml');
      const code = await runRunCommand(file, [screen.target, serial], {}, config, io, answeringTerminal('y').terminal);

      expect(code).toBe(1);
      expect(said).toContain(`${screen.target} step 1/2: type (2000 chars) failed: type (2000 chars) did not finish within 5s\n`);
      expect(said).toContain(`${serial} step 2/2: type (1 chars) ok\n`);
      // The typing had begun, and did not go on: the connection is closed with no key after the
      // timeout but the let-go of what was held.
      await waitFor(() => screen.open() === 0 || screen.keys.length > (keysAtTimeout ?? 0) + 2, 'the typing connection to close');
      expect(keysAtTimeout).toBeGreaterThan(0);
      expect(screen.keys.length - (keysAtTimeout ?? 0)).toBeLessThanOrEqual(2);
      expect(screen.open()).toBe(0);
      expect(screen.keys.length).toBeLessThan(2 * text.length);
      expect(stillDown(screen.keys)).toEqual([]);
      // The next step of that console never came: no z.
      expect(screen.keys).not.toContain('+7a');
      // The serial line took the whole text and then the next step's z.
      expect(line.got()).toBe(`${text}z`);
    } finally {
      await line.close();
      await screen.server.close();
    }
  }, 60_000);
});
