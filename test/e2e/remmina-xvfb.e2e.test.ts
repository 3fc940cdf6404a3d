import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepForInspection } from './support/expectations.js';
import type { RgbImage } from './support/images.js';
import { canConnect } from './support/net.js';
import { pollFor } from './support/poll.js';
import { awaitProcessesGone, commandLine, descendantPids, ProcessLab } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand } from './support/vconsole.js';
import { awaitWindow, awaitWindowsGone, grabScreen, startXvfb, type XServer, type XWindow } from './support/xvfb.js';

// Remmina, the viewer added as one descriptor: `vconsole open demo:vm-a --viewer remmina` starts
// `remmina -c vnc://127.0.0.1:PORT`, and Remmina's window shows the demo console (its
// background and its yellow clock, which the demo server draws only for a client that finished
// the RFB handshake and asked for updates); SIGINT to vconsole closes it.
const gate = requireTools(['Xvfb', 'xwininfo', 'import', 'convert', 'remmina', 'pgrep']);

/** The demo console's background (src/rfb/demo/screen.ts) and its clock's colour. */
const DEMO_BACKGROUND = [0x1b, 0x28, 0x38] as const;
const DEMO_CLOCK = [0xff, 0xc8, 0x57] as const;

function countColour(image: RgbImage, area: XWindow, [r, g, b]: readonly number[]): number {
  let count = 0;
  for (let y = area.y; y < Math.min(area.y + area.height, image.height); y++) {
    for (let x = area.x; x < Math.min(area.x + area.width, image.width); x++) {
      const o = (y * image.width + x) * 3;
      if (Math.abs(image.pixels[o] - r) <= 8 && Math.abs(image.pixels[o + 1] - g) <= 8 && Math.abs(image.pixels[o + 2] - b) <= 8) count++;
    }
  }
  return count;
}

describe.skipIf(gate.skip)(gatedTitle('vconsole open with Remmina under Xvfb', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = await lab.tempDir('remmina');
    x = await startXvfb(lab);
    // Remmina writes remmina.pref under $XDG_CONFIG_HOME (also for --version) and state under
    // $XDG_CACHE_HOME: its own HOME keeps the developer's profile out of it and it out of theirs.
    // No session bus: with one, a second `remmina -c` would hand its URI to any Remmina running.
    const home = join(dir, 'home');
    const runtime = join(dir, 'runtime');
    await mkdir(home, { recursive: true });
    await mkdir(runtime, { recursive: true, mode: 0o700 });
    env = {
      ...x.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_RUNTIME_DIR: runtime,
      DBUS_SESSION_BUS_ADDRESS: undefined,
    };
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  it(
    'vconsole open demo:vm-a --viewer remmina: Remmina connects with -c vnc://HOST:PORT and shows the demo screen; SIGINT closes it',
    async () => {
      const open = await startPortCommand(lab, 'open', ['demo:vm-a'], ['--viewer', 'remmina', '--no-tui'], env);
      try {
        const [{ address, port }] = open.ports;
        const pids = await pollFor(
          async () => {
            const children = await descendantPids(open.process.pid);
            const lines = await Promise.all(children.map(async (pid) => ({ pid, line: (await commandLine(pid)) ?? '' })));
            const remminas = lines.filter((c) => c.line.includes('remmina'));
            return remminas.length > 0 ? remminas : undefined;
          },
          { what: 'vconsole to start remmina', timeoutMs: 30_000, detail: () => open.process.describe() },
        );
        expect(pids.map((p) => p.line)).toEqual([
          expect.stringMatching(new RegExp(`remmina -c vnc://${address.replace(/\./g, '\\.')}:${port}$`)),
        ]);

        // Remmina titles its window HOST:PORT (it takes no title flag).
        const window = await awaitWindow(
          x,
          'a Remmina window for the demo console',
          (w) => w.className === 'org.remmina.Remmina' && w.title === `${address}:${port}`,
          { width: 400, height: 300 },
          () => open.process.describe(),
        );
        let last = '';
        let shot = '';
        try {
          await pollFor(
            async () => {
              const screen = await grabScreen(x, dir, 'remmina');
              shot = screen.file;
              const background = countColour(screen.image, window, DEMO_BACKGROUND);
              const clock = countColour(screen.image, window, DEMO_CLOCK);
              last = `${background} background and ${clock} clock pixels in ${window.width}x${window.height}`;
              return background > (window.width * window.height) / 3 && clock > 100 ? true : undefined;
            },
            { what: 'Remmina to draw the demo screen', timeoutMs: 60_000, intervalMs: 500, detail: () => last },
          );
        } catch (err) {
          throw new Error(`${(err as Error).message}\nscreenshot: ${shot ? await keepForInspection(shot, 'remmina') : 'none taken'}`, {
            cause: err,
          });
        }

        await open.interrupt();
        await awaitProcessesGone(
          pids.map((p) => p.pid),
          'remmina to exit after SIGINT',
        );
        await awaitWindowsGone(x, [window.id], 'the Remmina window to close after SIGINT');
        expect(await canConnect(port), `port ${port} still open after SIGINT`).toBe(false);
      } finally {
        await open.process.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
