import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { BANNER_BACKGROUND } from '../../src/rfb/hub/banner.js';
import { startDemoRfbServer, type DemoRfbServer } from '../../src/rfb/demo/server.js';
import { DemoScreen } from '../../src/rfb/demo/screen.js';
import { failure } from '../support/streams.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';

const it = test
  // A config directory of its own: an exposed listener makes its TLS certificate there.
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture needs from this pattern
  .extend('configHome', { scope: 'file' }, ({}, { onCleanup }) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vconsole-share-config-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('start', ({ configHome, vconsole }) => {
    return (args: string[]) => vconsole.start(args, { XDG_CONFIG_HOME: configHome });
  })
  .extend('demoServer', ({ cleanup }) => {
    return async (name: string, port = 0): Promise<DemoRfbServer> => {
      const server = await startDemoRfbServer({ name, host: '127.0.0.1', port });
      cleanup.add(() => server.close());
      return server;
    };
  })
  // A viewer on `port`: an RFB client asking for updates in the background until closed.
  .extend('viewer', ({ cleanup }) => {
    return (port: number, password?: string) => liveScreen(net.connect({ host: '127.0.0.1', port }), { password, shared: false }, cleanup);
  });

const pixel = pixelAt;
const livePixel = (name: string, x: number, y: number) => new DemoScreen(name, 800, 600).pixels.readUInt32LE((y * 800 + x) * 4) & 0xffffff;

describe('vconsole proxy --share', () => {
  it('serves two non-shared viewers over one console connection, neither kicked', async ({ demoServer, start, viewer }) => {
    const server = await demoServer('vm-s');
    const proxy = start(['proxy', `tcp://127.0.0.1:${server.port}`, '--share']);
    const [{ port }] = await proxy.jsonLines(1);
    const one = await viewer(port as number);
    const two = await viewer(port as number);
    await waitFor(
      () => [one, two].every((v) => v.framebuffer.width === 800 && pixel(v.framebuffer, 5, 599) === livePixel('vm-s', 5, 599)),
      'both screens',
    );
    expect(server.clients).toBe(1);
    expect(one.closed() || two.closed()).toBe(false);
  });

  it('open --share does the same for the viewers of open', async ({ demoServer, start, viewer }) => {
    const server = await demoServer('vm-o');
    const open = start(['open', `tcp://127.0.0.1:${server.port}`, '--share', '--no-tui', '--viewer', 'none']);
    const [{ port }] = await open.jsonLines(1);
    const views = [await viewer(port as number), await viewer(port as number)];
    await waitFor(() => views.every((v) => pixel(v.framebuffer, 5, 599) === livePixel('vm-o', 5, 599)), 'both screens');
    expect(server.clients).toBe(1);
  });

  it('a later proxy of a console a shared open holds joins it: its viewers add no console connection', async ({
    demoServer,
    start,
    viewer,
  }) => {
    const server = await demoServer('vm-j');
    const target = `tcp://127.0.0.1:${server.port}`;
    const open = start(['open', target, '--no-tui', '--viewer', 'none']);
    await open.jsonLines(1);
    const proxy = start(['proxy', target]);
    const [{ port }] = await proxy.jsonLines(1);
    const views = [await viewer(port as number), await viewer(port as number)];
    await waitFor(() => views.every((v) => pixel(v.framebuffer, 5, 599) === livePixel('vm-j', 5, 599)), 'both screens');
    expect(server.clients).toBe(1);
    await proxy.waitForStderr(/joined the console vconsole open \(pid \d+\) holds/);
  });

  it('open in a second terminal joins the console the first holds: one console connection for both', async ({
    demoServer,
    start,
    viewer,
  }) => {
    const server = await demoServer('vm-k');
    const target = `tcp://127.0.0.1:${server.port}`;
    const first = start(['open', target, '--no-tui', '--viewer', 'none']);
    await first.jsonLines(1);
    const second = start(['open', target, '--no-tui', '--viewer', 'none']);
    const [{ port }] = await second.jsonLines(1);
    const view = await viewer(port as number);
    await waitFor(() => pixel(view.framebuffer, 5, 599) === livePixel('vm-k', 5, 599), 'the screen through the second open');
    expect(server.clients).toBe(1);
    await first.waitForStderr(/another vconsole of yours joined/);
  });

  it('shares with defaults.share: true in the config file, and --no-share wins over it', async ({
    demoServer,
    makeTmpDir,
    start,
    viewer,
  }) => {
    const server = await demoServer('vm-c');
    const config = path.join(makeTmpDir('vconsole-share-config'), 'config.yaml');
    writeFileSync(config, 'defaults:\n  share: true\n');
    const shared = start(['--config', config, 'proxy', `tcp://127.0.0.1:${server.port}`]);
    const [{ port }] = await shared.jsonLines(1);
    const views = [await viewer(port as number), await viewer(port as number)];
    await waitFor(() => views.every((v) => pixel(v.framebuffer, 5, 599) === livePixel('vm-c', 5, 599)), 'both screens');
    expect(server.clients).toBe(1);

    // --no-join: else it would join the console the shared proxy holds instead of dialling its own.
    const unshared = start(['--config', config, 'proxy', `tcp://127.0.0.1:${server.port}`, '--no-share', '--no-join']);
    const [{ port: plainPort }] = await unshared.jsonLines(1);
    await viewer(plainPort as number);
    await waitFor(() => server.clients === 2, 'a console connection of its own');
  });

  it('open shares without --share; --no-share and defaults.share: false give each viewer its own console connection; proxy does not', async ({
    demoServer,
    makeTmpDir,
    start,
    viewer,
  }) => {
    const server = await demoServer('vm-d');
    const target = `tcp://127.0.0.1:${server.port}`;
    const shared = start(['open', target, '--no-tui', '--viewer', 'none']);
    const [{ port }] = await shared.jsonLines(1);
    const views = [await viewer(port as number), await viewer(port as number)];
    await waitFor(() => views.every((v) => pixel(v.framebuffer, 5, 599) === livePixel('vm-d', 5, 599)), 'both screens');
    expect(server.clients).toBe(1);

    const config = path.join(makeTmpDir('vconsole-share-config'), 'config.yaml');
    writeFileSync(config, 'defaults:\n  share: false\n');
    for (const args of [
      ['open', target, '--no-tui', '--viewer', 'none', '--no-share'],
      ['--config', config, 'open', target, '--no-tui', '--viewer', 'none'],
      ['proxy', target],
    ]) {
      // --no-join: else each would join the console the shared open holds instead of dialling its own.
      const unshared = start([...args, '--no-join']);
      const [{ port: plainPort }] = await unshared.jsonLines(1);
      // Each viewer dials the console itself: two more connections (shared, the hub's one would be all).
      await viewer(plainPort as number);
      await viewer(plainPort as number);
      await waitFor(() => server.clients >= 3, `a console connection per viewer (${args.join(' ')})`);
      await unshared.stop();
      await waitFor(() => server.clients === 1, 'only the shared open connected again');
    }
  });

  it('shares a demo console the same way', async ({ start, viewer }) => {
    const proxy = start(['proxy', 'demo:vm-x', '--share']);
    const [{ port }] = await proxy.jsonLines(1);
    const views = [await viewer(port as number), await viewer(port as number)];
    await waitFor(() => views.every((v) => pixel(v.framebuffer, 5, 599) === livePixel('vm-x', 5, 599)), 'both screens');
  });

  it('keeps the viewer through a console restart: banner, then live again', async ({ demoServer, start, viewer }) => {
    const first = await demoServer('vm-r');
    const consolePort = first.port;
    const proxy = start(['proxy', `tcp://127.0.0.1:${consolePort}`, '--share']);
    const [{ port }] = await proxy.jsonLines(1);
    const watcher = await viewer(port as number);
    const live = livePixel('vm-r', 2, 30);
    await waitFor(() => pixel(watcher.framebuffer, 2, 30) === live, 'the live screen');
    await first.close();
    await waitFor(() => pixel(watcher.framebuffer, 2, 30) === BANNER_BACKGROUND, 'the banner');
    await proxy.waitForStderr(/reconnecting/);
    await demoServer('vm-r', consolePort);
    await waitFor(() => pixel(watcher.framebuffer, 2, 30) === live, 'the live screen again', 30_000);
    expect(watcher.closed()).toBe(false);
  });

  it('asks viewers of an exposed listener for a generated password shown once; a wrong one is refused and logged', async ({
    start,
    viewer,
  }) => {
    const proxy = start(['proxy', 'demo:vm-p', '--share', '--listen', '0.0.0.0', '--insecure-vnc-auth']);
    const [{ port }] = await proxy.jsonLines(1);
    await proxy.waitForStderr(/VNC password for viewers of this listener: (\S+)/);
    const password = /VNC password for viewers of this listener: (\S+)/.exec(proxy.stderr())![1];
    await failure(viewer(port as number));
    await failure(viewer(port as number, 'not-it'));
    await proxy.waitForStderr(/wrong VNC password from 127\.0\.0\.1: viewer refused/);
    const good = await viewer(port as number, password);
    await waitFor(() => good.framebuffer.width === 800, 'the screen with the right password');
    expect(proxy.stderr().split(password).length - 1).toBe(1);
    expect(proxy.stdout()).not.toContain(password);
  });

  it('takes the viewer password from --password-file, and refuses an empty file', async ({ makeTmpDir, start, viewer }) => {
    const dir = makeTmpDir('vconsole-share');
    const file = path.join(dir, 'pass');
    writeFileSync(file, 's3cret\n', { mode: 0o600 });
    const proxy = start(['proxy', 'demo:vm-q', '--share', '--listen', '0.0.0.0', '--insecure-vnc-auth', '--password-file', file]);
    const [{ port }] = await proxy.jsonLines(1);
    const good = await viewer(port as number, 's3cret');
    await waitFor(() => good.framebuffer.width === 800, 'the screen with the file password');
    expect(proxy.stderr()).not.toContain('s3cret');
    writeFileSync(file, '\n');
    const empty = await runVconsole(['proxy', 'demo:vm-q', '--share', '--password-file', file]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^vconsole: --password-file .*first line is empty/);
  });
});
