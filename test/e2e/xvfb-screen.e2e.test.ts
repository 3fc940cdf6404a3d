import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertBinary, parsePpm, readImage, type RgbImage } from './support/images.js';
import { ProcessLab, runProgram, runProgramBinary } from './support/processes.js';
import { gatedTitle, requireTools } from './support/tools.js';
import { pollFor } from './support/poll.js';
import { captureScreen, grabScreen, startXvfb, type XServer } from './support/xvfb.js';

// The e2e tests look at viewers' windows through the file Xvfb keeps its screen in: what they read
// there has to be what the X server shows, which import (asking the server) is the control for.
const gate = requireTools(['Xvfb', 'import', 'display', 'convert', 'xdotool']);

describe.skipIf(gate.skip)(gatedTitle("Xvfb's screen file", gate), () => {
  const lab = new ProcessLab();
  let x: XServer;
  let dir: string;

  beforeAll(async () => {
    dir = await lab.tempDir('xvfb-screen-test');
    x = await startXvfb(lab);
    // A picture of many colours: every channel and position tells.
    const picture = join(dir, 'picture.png');
    const drawn = await runProgram(convertBinary(), [
      '-size',
      '300x200',
      'plasma:red-blue',
      '-fill',
      'lime',
      '-draw',
      'rectangle 10,10 60,40',
      picture,
    ]);
    expect(drawn.code, drawn.stderr).toBe(0);
    // The picture in a window of its own at the top left; the pointer over it, as after a click into
    // a viewer: a window with a pointer shape of its own gets it drawn, and it is not part of the screen.
    lab.start('display', 'display', ['-geometry', '+0+0', picture], { env: x.env });
    // Drawn: the window's 100th row holds the plasma's many colours (its first is display's border).
    const colours = (image: RgbImage) => new Set(image.pixels.subarray(100 * image.width * 3, (100 * image.width + 300) * 3)).size;
    await pollFor(async () => (colours(await captureScreen(x)) > 50 ? true : undefined), {
      what: "display's picture on the screen",
      timeoutMs: 30_000,
    });
    for (const at of ['50', '60']) {
      const moved = await runProgram('xdotool', ['mousemove', at, at], { env: x.env });
      expect(moved.code, moved.stderr).toBe(0);
    }
  });

  afterAll(() => lab.cleanup());

  it('reads the screen pixel for pixel as import sees it', async () => {
    const control = parsePpm(await runProgramBinary('import', ['-window', 'root', '-depth', '8', 'ppm:-'], { env: x.env }));
    const seen = await captureScreen(x);
    expect([seen.width, seen.height]).toEqual([control.width, control.height]);
    expect(seen.pixels.equals(control.pixels)).toBe(true);
  });

  it('keeps a grabbed screen as a PNG that decodes to the same pixels', async () => {
    const { file, image } = await grabScreen(x, dir, 'kept');
    const decoded = await readImage(file);
    expect(decoded.pixels.equals(image.pixels)).toBe(true);
  });
});
