import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { makePictures } from '../../scripts/pictures.js';
import { ProcessLab } from './support/processes.js';
import { E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';

// The README's pictures are made by scripts/pictures.ts from the demo consoles (tmux and headless
// Chromium); CI runs it here into a temporary directory, so a change that breaks the table, the
// grid or the browser viewer (or the script) fails instead of leaving the README's pictures stale.
const gate = requireTools(['tmux', 'chromium']);

/** How many distinct colours a picture has, and how many of its pixels differ from its corner's. */
function contents(png: PNG): { colours: number; drawn: number } {
  const colours = new Set<number>();
  const corner = png.data.readUInt32BE(0);
  let drawn = 0;
  for (let offset = 0; offset < png.data.length; offset += 4) {
    const pixel = png.data.readUInt32BE(offset);
    colours.add(pixel);
    if (pixel !== corner) drawn++;
  }
  return { colours: colours.size, drawn };
}

describe.skipIf(gate.skip)(gatedTitle('the README pictures script', gate), () => {
  const lab = new ProcessLab();
  afterAll(() => lab.cleanup(), 60_000);

  it(
    'makes the table, grid and browser viewer pictures, each a PNG that shows something and stays small',
    async () => {
      const out = await lab.tempDir('pictures');
      const files = await makePictures(out);
      expect(files.map((file) => file.slice(out.length + 1)).sort()).toEqual(['browser-viewer.png', 'grid.png', 'table.png']);
      for (const name of ['table.png', 'grid.png', 'browser-viewer.png']) {
        const file = join(out, name);
        const png = PNG.sync.read(readFileSync(file));
        expect(png.width, name).toBeGreaterThan(600);
        expect(png.height, name).toBeGreaterThan(200);
        const { colours, drawn } = contents(png);
        // Text in several colours (a blank or one-colour picture has one or two).
        expect(colours, `${name}: distinct colours`).toBeGreaterThan(20);
        expect(drawn / (png.width * png.height), `${name}: share of drawn pixels`).toBeGreaterThan(0.02);
        expect(statSync(file).size, `${name}: bytes`).toBeLessThan(150_000);
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
