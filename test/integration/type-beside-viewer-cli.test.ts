// `vconsole type` and `send` beside an open viewer: the action goes through the session another
// vconsole of this user holds (its hub), so the console sees no second connection and the viewer
// keeps its own and sees the keys land; a console held view-only refuses the action, sending nothing.
import net from 'node:net';
import { describe, expect } from 'vitest';
import { startDemoRfbServer, type DemoRfbServer } from '../../src/rfb/demo/server.js';
import { DemoScreen } from '../../src/rfb/demo/screen.js';
import type { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { waitFor } from '../support/wait.js';

const it = test
  .extend('demoServer', ({ cleanup }) => {
    return async (name: string): Promise<DemoRfbServer> => {
      const server = await startDemoRfbServer({ name, host: '127.0.0.1', port: 0 });
      cleanup.add(() => server.close());
      return server;
    };
  })
  .extend('viewer', ({ cleanup }) => {
    return (port: number) => liveScreen(net.connect({ host: '127.0.0.1', port }), { shared: false }, cleanup);
  });

/** True when the demo screen's key line in `fb` reads as the demo draws it after `keysym` was let go (or before any key). */
function keyLineShows(fb: Framebuffer, name: string, keysym?: number): boolean {
  const screen = new DemoScreen(name, 800, 600);
  if (keysym !== undefined) screen.keyEvent(false, keysym);
  const band = screen.lineBand('key');
  for (let y = band.y; y < band.y + band.h; y++)
    for (let x = band.x; x < band.x + band.w; x++)
      if (pixelAt(fb, x, y) !== (screen.pixels.readUInt32LE((y * 800 + x) * 4) & 0xffffff)) return false;
  return true;
}

describe('vconsole type beside an open viewer', () => {
  it('types through the open that holds the console: one console connection, the viewer kept, the keys seen there', async ({
    demoServer,
    vconsole,
    viewer,
  }) => {
    const server = await demoServer('vm-t');
    const target = `tcp://127.0.0.1:${server.port}`;
    const open = vconsole.start(['open', target, '--no-tui', '--viewer', 'none']);
    const [{ port }] = await open.jsonLines(1);
    const view = await viewer(port as number);
    await waitFor(() => keyLineShows(view.framebuffer, 'vm-t'), 'the screen before any key');
    const typed = await runVconsole(['type', target, '--', 'hello']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toMatch(/ tcp:\/\/127\.0\.0\.1:\d+: typed 5 characters \(scancodes, us layout\)\n$/);
    // The viewer sees the last key let go, on its own connection, and the console had one client all along.
    await waitFor(() => keyLineShows(view.framebuffer, 'vm-t', 0x6f), 'the last typed key on the viewer');
    expect(view.closed()).toBe(false);
    expect(server.clients).toBe(1);
    await open.waitForStderr(/another vconsole of yours joined/);
  });

  it('refuses to act on a console held view-only, in one line, exit 1, nothing sent', async ({ demoServer, vconsole, viewer }) => {
    const server = await demoServer('vm-v');
    const target = `tcp://127.0.0.1:${server.port}`;
    const proxy = vconsole.start(['proxy', target, '--share', '--view-only']);
    const [{ port }] = await proxy.jsonLines(1);
    const view = await viewer(port as number);
    await waitFor(() => keyLineShows(view.framebuffer, 'vm-v'), 'the screen before any key');
    for (const args of [
      ['type', target, '--', 'hello'],
      ['send', target, 'ctrl-alt-delete'],
    ]) {
      const result = await runVconsole(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^vconsole: tcp:\/\/127\.0\.0\.1:\d+: vconsole proxy \(pid \d+\) holds the console view-only \(--view-only\): nothing was sent; act through a vconsole that shares it with keys, or stop that one \(vconsole ps lists it\)\n$/,
      );
    }
    // The held session is untouched: its viewer stays, the console still has one client and no key line.
    expect(keyLineShows(view.framebuffer, 'vm-v')).toBe(true);
    expect(server.clients).toBe(1);
    expect(view.closed()).toBe(false);
  });
});
