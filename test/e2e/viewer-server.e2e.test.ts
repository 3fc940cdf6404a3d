import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { serveClient, type RfbServerOptions } from '../../src/rfb/server/rfb-server.js';
import { readImage, type RgbImage } from './support/images.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';
import { awaitWindow, grabScreen, startXvfb, type XServer } from './support/xvfb.js';

// Real viewers (vncsnapshot: TightVNC's code, its own pixel format; TigerVNC's vncviewer) read
// a Framebuffer painted here through serveClient: the hub's local server, without any upstream.
const gate = requireTools(['vncsnapshot', 'vncviewer', 'vncpasswd', 'Xvfb', 'xwininfo', 'xdotool', 'import', 'convert']);

const QUADRANTS: Array<{ x: number; y: number; rgb: number }> = [
  { x: 0, y: 0, rgb: 0xd02020 },
  { x: 160, y: 0, rgb: 0x20c040 },
  { x: 0, y: 120, rgb: 0x2040e0 },
  { x: 160, y: 120, rgb: 0xf0e0a0 },
];

function paintQuadrants(fb: Framebuffer): void {
  for (const q of QUADRANTS) fb.fill({ x: q.x, y: q.y, w: 160, h: 120 }, q.rgb);
  fb.damage({ x: 0, y: 0, w: 320, h: 240 });
}

/** The colour at (x, y) is within `tolerance` of 0xRRGGBB on every channel (JPEG is lossy). */
function near(image: RgbImage, x: number, y: number, rgb: number, tolerance = 24): boolean {
  const at = (y * image.width + x) * 3;
  const want = [rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff];
  return want.every((v, i) => Math.abs(image.pixels[at + i] - v) <= tolerance);
}

function expectQuadrants(image: RgbImage, left = 0, top = 0): void {
  for (const q of QUADRANTS) {
    const [x, y] = [left + q.x + 80, top + q.y + 60];
    const at = (y * image.width + x) * 3;
    expect(
      near(image, x, y, q.rgb),
      `pixel at ${x},${y} is ${[...image.pixels.subarray(at, at + 3)].join(',')}, expected ${q.rgb.toString(16)}`,
    ).toBe(true);
  }
}

describe.skipIf(gate.skip)(gatedTitle("real viewers against the hub's RFB server", gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  const events: string[] = [];
  let failures = 0;
  const fb = new Framebuffer(320, 240, 'vm-hub');
  paintQuadrants(fb);

  async function listen(options: Partial<RfbServerOptions>): Promise<number> {
    const server = net.createServer((socket) => {
      serveClient(socket, {
        framebuffer: fb,
        input: {
          key: (down, keysym) => events.push(`key ${keysym}`),
          pointer: (buttons, x, y) => events.push(`pointer ${buttons} ${x},${y}`),
          clipboard: () => undefined,
        },
        onAuthFailure: () => (failures += 1),
        ...options,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as net.AddressInfo).port;
  }
  const servers: net.Server[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('viewer-server');
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    for (const server of servers) server.close();
    await lab.cleanup();
  }, 60_000);

  function passwordFile(name: string, password: string): string {
    const file = join(dir, name);
    writeFileSync(file, execFileSync('vncpasswd', ['-f'], { input: `${password}\n` }));
    return file;
  }

  it(
    'vncsnapshot gets the right colours in its own pixel format',
    async () => {
      const port = await listen({});
      const snapshot = await takeVncSnapshot(port, dir);
      expect([snapshot.width, snapshot.height, snapshot.desktopName]).toEqual([320, 240, 'vm-hub']);
      expectQuadrants(snapshot.image);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  // vncsnapshot's own list puts Raw before ZRLE and Hextile: ask for each explicitly.
  for (const encoding of ['hextile', 'zrle']) {
    it(
      `vncsnapshot with ${encoding} only and the right -passwd file`,
      async () => {
        const port = await listen({ password: 'hub-pass' });
        const file = join(dir, `${encoding}.jpg`);
        const ok = await runProgram(
          'vncsnapshot',
          ['-quiet', '-encodings', encoding, '-passwd', passwordFile('right', 'hub-pass'), `127.0.0.1::${port}`, file],
          { timeoutMs: 60_000 },
        );
        expect(ok.code, ok.stderr).toBe(0);
        expectQuadrants(await readImage(file));
      },
      E2E_TEST_TIMEOUT_MS,
    );
  }

  it(
    'vncsnapshot with a wrong -passwd file is refused',
    async () => {
      const port = await listen({ password: 'hub-pass' });
      const wrong = await runProgram(
        'vncsnapshot',
        ['-quiet', '-passwd', passwordFile('wrong', 'not-it'), `127.0.0.1::${port}`, join(dir, 'no.jpg')],
        { timeoutMs: 60_000 },
      );
      expect(wrong.code).not.toBe(0);
      expect(failures).toBe(1);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'TigerVNC vncviewer with a -passwd file shows the picture, follows changes and forwards the pointer',
    async () => {
      const port = await listen({ password: 'hub-pass' });
      const x: XServer = await startXvfb(lab);
      const viewer = lab.start('vncviewer', 'vncviewer', ['-passwd', passwordFile('tiger', 'hub-pass'), `127.0.0.1::${port}`], {
        env: x.env,
      });
      const window = await awaitWindow(
        x,
        'the TigerVNC window',
        (w) => w.title.includes('vm-hub'),
        { width: 320, height: 240 },
        () => viewer.describe(),
      );
      // The window is mapped before its first picture is drawn: wait for the picture, then say
      // which quadrant is wrong if it never came.
      const drawn = async () => {
        const { image } = await grabScreen(x, dir, 'tiger');
        return QUADRANTS.every((q) => near(image, window.x + q.x + 80, window.y + q.y + 60, q.rgb)) || undefined;
      };
      await pollFor(drawn, { what: 'the four quadrants in the TigerVNC window', timeoutMs: 30_000 }).catch(() => undefined);
      expectQuadrants((await grabScreen(x, dir, 'tiger')).image, window.x, window.y);
      // Repaint: the viewer's incremental updates follow.
      fb.fill({ x: 0, y: 0, w: 160, h: 120 }, 0x20c040);
      fb.damage({ x: 0, y: 0, w: 160, h: 120 });
      await pollFor(async () => near((await grabScreen(x, dir, 'tiger2')).image, window.x + 80, window.y + 60, 0x20c040) || undefined, {
        what: 'the repainted quadrant',
        timeoutMs: 30_000,
      });
      paintQuadrants(fb);
      await runProgram('xdotool', ['mousemove', String(window.x + 50), String(window.y + 40), 'click', '1'], {
        env: x.env,
        timeoutMs: 15_000,
      });
      await pollFor(() => events.find((e) => e.startsWith('pointer 1 ')), { what: 'a pointer press from vncviewer', timeoutMs: 30_000 });
      expect(viewer.hasExited()).toBe(false);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
