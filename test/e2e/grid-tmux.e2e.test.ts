import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scaleBgrxToRgb } from '../../src/tui/thumbnails/scale.js';
import { halfBlockCells, type HalfBlockCell, type Rgb } from '../support/half-blocks.js';
import { countLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';
import { qemuPcArgs } from './support/qemu.js';

// The grid in a real terminal: `vconsole open --grid` in tmux shows a QEMU VM's BIOS screen and
// a demo console as half-block thumbnails; the colours tmux holds for the QEMU tile's cells are
// read back and compared with QEMU's own screendump, scaled down the same way.
const gate = requireTools(['tmux', 'qemu-system-x86_64']);

/**
 * Tolerance: a cell's colour may differ from the scaled screendump by at most 2 a channel (both
 * sides round the same area means; 2 leaves room for nothing else), and at most
 * BLINK_CELLS cells may differ more: SeaBIOS's text cursor blinks, and the screendump and the
 * thumbnail may catch it in different phases (the cursor covers 8x2 pixels of 720x400, which
 * touch at most two cells of a thumbnail).
 */
const CHANNEL_TOLERANCE = 2;
const BLINK_CELLS = 4;

interface TilePicture {
  /** Rows of half-block cells, top to bottom. */
  rows: HalfBlockCell[][];
  columns: number;
}

/**
 * The picture of the tile whose title line contains `title`: the half-block rows under its title
 * and state lines, between its borders. A picture sits in the middle of its tile, so blank lines
 * and columns around it are skipped.
 */
function tilePicture(plain: string, coloured: string, title: string): TilePicture | undefined {
  const lines = plain.split('\n');
  const colouredLines = coloured.split('\n');
  const titleLine = lines.findIndex((line) => line.includes(title));
  if (titleLine < 0) return undefined;
  // The border is the character before the selection mark or the space before the name.
  const left = lines[titleLine].indexOf(title) - 2;
  const right = lines[titleLine].slice(left + 1).search(/[│║]/) + left + 1;
  if (right <= left) return undefined;
  const rows: HalfBlockCell[][] = [];
  let startColumn: number | undefined;
  for (let y = titleLine + 2; y < colouredLines.length; y++) {
    const cells = halfBlockCells(colouredLines[y]).filter((cell) => cell.column > left && cell.column < right);
    const start = startColumn === undefined ? 0 : cells.findIndex((cell) => cell.column === startColumn);
    if (cells.length === 0 || start < 0) {
      if (rows.length > 0) break;
      continue;
    }
    startColumn ??= cells[start].column;
    let end = start;
    while (end + 1 < cells.length && cells[end + 1].column === cells[end].column + 1) end++;
    rows.push(cells.slice(start, end + 1));
  }
  return rows.length > 0 ? { rows, columns: rows[0].length } : undefined;
}

/** The screendump scaled as vconsole scales a framebuffer: R G B made B G R X, box filter. */
function scaledScreendump(image: RgbImage, columns: number, height: number): Uint8Array {
  const bgrx = new Uint8Array(image.width * image.height * 4);
  for (let p = 0; p < image.width * image.height; p++) {
    bgrx[p * 4] = image.pixels[p * 3 + 2];
    bgrx[p * 4 + 1] = image.pixels[p * 3 + 1];
    bgrx[p * 4 + 2] = image.pixels[p * 3];
  }
  return scaleBgrxToRgb(bgrx, image.width, image.height, columns, height);
}

/** The cells whose top or bottom colour is off by more than the tolerance, as `x,y`. */
function differingCells(picture: TilePicture, expected: Uint8Array): string[] {
  const off = (colour: Rgb | undefined, pixel: number) =>
    !colour || colour.some((value, c) => Math.abs(value - expected[pixel * 3 + c]) > CHANNEL_TOLERANCE);
  const differing: string[] = [];
  for (const [y, row] of picture.rows.entries()) {
    for (const [x, cell] of row.entries()) {
      if (off(cell.top, 2 * y * picture.columns + x) || off(cell.bottom, (2 * y + 1) * picture.columns + x)) differing.push(`${x},${y}`);
    }
  }
  return differing;
}

describe.skipIf(gate.skip)(gatedTitle('vconsole open --grid in tmux', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let qmp: Qmp;
  let vncPath: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    dir = await lab.tempDir('grid');
    vncPath = join(dir, 'vm.vnc.sock');
    const qmpPath = join(dir, 'vm.qmp.sock');
    const qemu = lab.start('qemu grid', 'qemu-system-x86_64', [
      ...qemuPcArgs('grid'),
      '-vnc',
      `unix:${vncPath}`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
    ]);
    await awaitSocketFile(vncPath, "QEMU's VNC socket", 60_000, () => qemu.describe());
    qmp = await Qmp.connect(qmpPath);
    await pollFor(async () => (countLit(await qmp.screendump(dir)) >= 1_500 ? true : undefined), {
      what: 'the BIOS text',
      timeoutMs: 90_000,
      intervalMs: 250,
    });
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(async () => {
    qmp?.close();
    await lab.cleanup();
  }, 60_000);

  it(
    "shows QEMU's screen in its tile, cell for cell the colours of a scaled screendump, next to a demo console",
    async () => {
      const command = [process.execPath, VCONSOLE_BIN, 'open', `unix://${vncPath}`, 'demo:vm-a', '--grid', '--viewer', 'none'];
      terminal = await startTmux(lab, await lab.tempDir('grid-tmux'), command, {
        columns: 120,
        rows: 40,
        cwd: REPO_ROOT,
        env: vconsoleEnv({ COLORTERM: 'truecolor' }),
      });
      const term = terminal;
      const title = 'unix://';
      await term.awaitScreen(
        'both tiles listening',
        (screen) => screen.includes('demo:vm-a') && screen.includes(title) && (screen.match(/listening/g) ?? []).length >= 2,
      );

      // Capture, screendump, capture: when both captures agree, the screendump is of the moment shown.
      let last = '';
      const outcome = await pollFor(
        async () => {
          const before = await term.captureColours();
          const image = await qmp.screendump(dir);
          const after = await term.captureColours();
          const picture = tilePicture(await term.capture(), after, title);
          if (before !== after || !picture) return undefined;
          const expected = scaledScreendump(image, picture.columns, picture.rows.length * 2);
          const differing = differingCells(picture, expected);
          last = `${picture.columns}x${picture.rows.length} cells, ${differing.length} differ: ${differing.slice(0, 20).join(' ')}`;
          return differing.length <= BLINK_CELLS ? { picture, image, differing } : undefined;
        },
        { what: "the QEMU tile to show QEMU's screen", timeoutMs: 60_000, intervalMs: 300, detail: () => last },
      );
      // A real picture: the BIOS text makes some cells lighter than the black around them.
      const tops = outcome.picture.rows.flat().map((cell) => cell.top ?? [0, 0, 0]);
      expect(tops.some((c) => c[0] > 20)).toBe(true);
      expect(tops.some((c) => c[0] < 5)).toBe(true);
      expect(outcome.picture.columns).toBeGreaterThan(20);
      expect([outcome.image.width, outcome.image.height]).toEqual([720, 400]);

      // The demo console's tile has a picture too: more than one colour in it.
      const demo = await pollFor(
        async () => {
          const picture = tilePicture(await term.capture(), await term.captureColours(), 'demo:vm-a');
          return picture && new Set(picture.rows.flat().map((cell) => String(cell.top))).size > 1 ? picture : undefined;
        },
        { what: "the demo console's picture", timeoutMs: 30_000, intervalMs: 200, detail: () => '' },
      );
      expect(demo.rows.length).toBeGreaterThan(3);

      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
