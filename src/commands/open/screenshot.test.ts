import { mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { Framebuffer } from '../../rfb/wire/framebuffer.js';
import { RfbHub } from '../../rfb/hub/hub.js';
import { RfbConsoleClient } from '../../rfb/client/rfb-client.js';
import { demoProvider } from '../../targets/demo/provider.js';
import { splitTarget } from '../../targets/registry.js';
import { saveSessionScreenshot } from './screenshot.js';
import { timestampedScreenshotName } from '../screenshot-file.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import { loopStalls } from '../../../test/support/loop-stalls.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function listeningDemo(name: string, options: { shared: boolean }) {
  const registry = new SessionRegistry();
  cleanup.push(() => registry.closeAll());
  const target = demoProvider.resolve(splitTarget(`demo:${name}`), {});
  const session = registry.add(options.shared ? new RfbHub(target) : target);
  await session.start({ host: '127.0.0.1', port: 0 });
  return session;
}

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'vconsole-shot-'));

describe('saveSessionScreenshot (s in open)', () => {
  it("writes a PNG of the demo screen through the session's port, named NAME-YYYYMMDD-HHMMSS.png", async () => {
    const session = await listeningDemo('vm-a', { shared: false });
    const dir = tempDir();
    const at = new Date(2026, 10, 30, 9, 5, 7);
    const file = await saveSessionScreenshot(session.snapshot(), { dir, at });
    expect(path.basename(file)).toBe('demo_vm-a-20261130-090507.png');
    const png = PNG.sync.read(readFileSync(file));
    expect([png.width, png.height]).toEqual([800, 600]);
    // The same second again never overwrites the first picture.
    const second = await saveSessionScreenshot(session.snapshot(), { dir, at });
    expect(path.basename(second)).toBe('demo_vm-a-20261130-090507-2.png');
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("pictures a shared console's own framebuffer, never its port (beyond loopback the port speaks VeNCrypt)", async () => {
    const shared = new Framebuffer(4, 2);
    shared.fill({ x: 0, y: 0, w: 4, h: 2 }, 0x3366cc);
    // Nothing listens on the port the snapshot names: a connection would fail the picture.
    const file = await saveSessionScreenshot({ name: 'vm-s', address: '127.0.0.1', port: 1 }, { dir: tempDir(), shared });
    const png = PNG.sync.read(readFileSync(file));
    expect([png.width, png.height]).toEqual([4, 2]);
    expect([...png.data.subarray(0, 3)]).toEqual([0x33, 0x66, 0xcc]);
  });

  it('writes the picture 0600 (a screen may show secrets), and never through a link planted under the next name', async () => {
    const session = await listeningDemo('vm-m', { shared: false });
    const dir = tempDir();
    const at = new Date(2026, 10, 30, 9, 5, 7);
    const victim = path.join(dir, 'victim');
    writeFileSync(victim, 'kept');
    symlinkSync(victim, path.join(dir, 'demo_vm-m-20261130-090507.png'));
    const file = await saveSessionScreenshot(session.snapshot(), { dir, at });
    expect(path.basename(file)).toBe('demo_vm-m-20261130-090507-2.png');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('kept');
  });

  it('kicks no viewer of a shared console', async () => {
    const session = await listeningDemo('vm-b', { shared: true });
    const port = session.snapshot().port as number;
    const socket = net.connect({ host: '127.0.0.1', port });
    cleanup.push(() => socket.destroy());
    const viewer = await RfbConsoleClient.connect(socket, new Framebuffer(0, 0), { shared: false });
    cleanup.push(() => viewer.close());
    let closed = false;
    viewer.on('close', () => (closed = true));
    await viewer.nextUpdate();
    const file = await saveSessionScreenshot(session.snapshot(), { dir: tempDir() });
    expect(PNG.sync.read(readFileSync(file)).width).toBe(800);
    // The viewer still gets updates after the picture was taken.
    await viewer.nextUpdate();
    expect(closed).toBe(false);
  });

  it('refuses, instead of kicking, on an unshared console that keeps one session and has a viewer', async () => {
    await expect(
      saveSessionScreenshot({ name: 'default/vm-a', address: '127.0.0.1', port: 1, clients: 1 }, { dir: tempDir(), exclusive: true }),
    ).rejects.toThrow(/would take default\/vm-a's only VNC session from its viewer/);
    // And says what would let it: the console shared again.
    await expect(
      saveSessionScreenshot(
        { name: 'default/vm-a', address: '127.0.0.1', port: 1, clients: 1 },
        { dir: tempDir(), exclusive: true, shareHint: 'drop --no-share' },
      ),
    ).rejects.toMatchObject({ hint: 's needs a shared console to picture one being watched: drop --no-share' });
  });

  it('says so when the session does not listen, or nothing answers on its port', async () => {
    await expect(saveSessionScreenshot({ name: 'vm-c' })).rejects.toThrow(/vm-c is not listening/);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    await expect(saveSessionScreenshot({ name: 'vm-c', address: '127.0.0.1', port }, { dir: tempDir() })).rejects.toThrow(
      /no screenshot of vm-c: /,
    );
  });

  it("keeps the loop free while it writes a huge console's picture (the TUI draws and hears keys meanwhile)", async () => {
    const side = 4096;
    const server = await startScriptedServer(async (peer: RfbPeer) => {
      await serveHandshake(peer, side, side);
      const stripes = Array.from({ length: 64 }, (_, i) => ({
        rect: { x: 0, y: i * 64, w: side, h: 32 },
        encoding: 7,
        body: Buffer.from([0x80, i * 4, 0x40, 0x80]),
      }));
      peer.write(update([{ rect: { x: 0, y: 0, w: side, h: side }, encoding: 7, body: Buffer.from([0x80, 1, 2, 3]) }, ...stripes]));
    });
    cleanup.push(() => server.close());
    const stalls = loopStalls();
    const file = await saveSessionScreenshot({ name: 'huge', address: '127.0.0.1', port: server.port }, { dir: tempDir() });
    const longest = stalls.stop();
    const png = PNG.sync.read(readFileSync(file));
    expect([png.width, png.height]).toEqual([side, side]);
    expect([...png.data.subarray(0, 3)], 'the first stripe').toEqual([0, 0x40, 0x80]);
    // Generous for a busy 2-core machine: written in one go, this picture holds the loop ~1 s.
    expect(longest, 'the longest the loop waited (ms)').toBeLessThan(250);
  }, 60_000);

  it('makes a file name of any console name', () => {
    expect(timestampedScreenshotName('../prod/db 1', new Date(2026, 0, 2, 3, 4, 5))).toBe('prod_db_1-20260102-030405.png');
  });
});
