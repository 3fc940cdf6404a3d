import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { ThumbnailView } from '../components/app.js';
import { renderConsoleApp, type ConsoleAppHandle } from '../components/render-console-app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { ImageOverlay, type ImagePlacement } from './image-overlay.js';
import { rgbToPng, iterm2Image } from './iterm2.js';
import { kittyDelete, kittyImage, kittyPlace } from './kitty.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, until } from '../../../test/support/tui.js';
import { FakeTerminalOutput } from '../../../test/support/fake-terminal.js';

const ESC = '\u001B';
const picture = { rgb: Uint8Array.from([255, 0, 0, 0, 0, 255]), width: 1, height: 2 };
const placement: ImagePlacement = { id: 7, top: 4, left: 1, columns: 10, rows: 3, picture };

describe('ImageOverlay', () => {
  it('kitty: sends a picture once, then only places it after each frame, and deletes it when it goes', () => {
    const written: string[] = [];
    const deferred: (() => void)[] = [];
    const overlay = new ImageOverlay(
      'kitty',
      (text) => written.push(text),
      (draw) => deferred.push(draw),
    );
    overlay.update([placement]);
    overlay.afterFrame(20);
    const png = rgbToPng(picture.rgb, 1, 2);
    const send = kittyImage(png, 1, 2, 100, { columns: 10, rows: 3, imageId: 7, placementId: 1 });
    // Save the cursor, 20 - 4 lines up, to column 2, the picture, back.
    expect(written).toEqual([`${ESC}7${ESC}[16A${ESC}[2G${send}${ESC}8${ESC}7${ESC}8`]);
    overlay.afterFrame(20);
    expect(written[1]).toBe(`${ESC}7${ESC}[16A${ESC}[2G${kittyPlace(7, { columns: 10, rows: 3, placementId: 1 })}${ESC}8${ESC}7${ESC}8`);
    // The deferred draw after the first update was overtaken by the frame: it draws nothing more.
    deferred.splice(0).forEach((draw) => draw());
    expect(written).toHaveLength(2);
    overlay.update([]);
    expect(written[2]).toBe(kittyDelete(7));
  });

  it('iTerm2: writes the picture after every frame (Ink rewrote its cells), and draws a changed picture without a frame', () => {
    const written: string[] = [];
    const deferred: (() => void)[] = [];
    const overlay = new ImageOverlay(
      'iterm2',
      (text) => written.push(text),
      (draw) => deferred.push(draw),
    );
    overlay.update([placement]);
    overlay.afterFrame(10);
    overlay.afterFrame(10);
    const image = iterm2Image(picture.rgb, 1, 2, { columns: 10, rows: 3 });
    expect(written).toEqual([0, 1].map(() => `${ESC}7${ESC}[6A${ESC}[2G${image}${ESC}8${ESC}7${ESC}8`));
    const next = { ...placement, picture: { ...picture, rgb: Uint8Array.from([0, 255, 0, 0, 255, 0]) } };
    overlay.update([next]);
    deferred.splice(0).forEach((draw) => draw());
    expect(written[2]).toContain(iterm2Image(next.picture.rgb, 1, 2, { columns: 10, rows: 3 }));
  });
});

describe('the grid with --thumbnails kitty', () => {
  let handle: ConsoleAppHandle | undefined;
  afterEach(() => handle?.unmount());

  it("draws the picture with kitty's protocol over the tile's blank picture area, right after Ink's frame", async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1, { consoleType: 'vnc' }) });
    const stdout = new FakeTerminalOutput(100, 40);
    const views: (ThumbnailView | undefined)[] = [];
    handle = renderConsoleApp(store, fakeHandlers(), {
      onThumbnailView: (view) => views.push(view),
      stdout: stdout as unknown as NodeJS.WriteStream,
      patchConsole: false,
      grid: true,
      thumbnails: 'kitty',
    });
    await until(() => views.length > 0, 'the tiles on screen');
    const view = views.at(-1)!;
    // Image modes sample finer than half blocks: four pixels across a cell, eight down.
    expect([view.pixelWidth, view.pixelHeight]).toEqual([view.columns * 4, view.rows * 8]);
    const rgb = new Uint8Array(view.pixelWidth * view.pixelHeight * 3).fill(200);
    store.apply({ type: 'thumbnail', sessionId: 1, thumbnail: { type: 'pixels', width: view.pixelWidth, height: view.pixelHeight, rgb } });
    await until(() => stdout.writes.some((w) => w.includes(`${ESC}_Ga=T,f=100`)), 'the kitty picture');
    const at = stdout.writes.findIndex((w) => w.includes(`${ESC}_Ga=T,f=100`));
    // The last frame Ink wrote before it: its lines, and where the tile's picture area is in them.
    const frame = stdout.writes
      .slice(0, at)
      .reverse()
      .find((w) => w.includes('\n'))!;
    const lines = frame.replace(/\u001B\[[0-9;]*[A-Za-z]/g, '').split('\n');
    const stateLine = lines.findIndex((line) => line.includes('listening') && line.includes('║'));
    const place = new RegExp(`^${ESC}7${ESC}\\[(\\d+)A${ESC}\\[(\\d+)G${ESC}_Ga=T,f=100,c=${view.columns},r=${view.rows},i=1,p=1,q=2,C=1`);
    const [, up, column] = place.exec(stdout.writes[at])!.map(Number);
    expect(stdout.writes[at].endsWith(`${ESC}8`)).toBe(true);
    // The picture's lines, below the state line, are blank where it goes, letterboxed in the
    // middle of the tile: as much blank to its left as to its right.
    const pictureTop = lines.length - 1 - up;
    expect(pictureTop).toBeGreaterThan(stateLine);
    for (const line of lines.slice(pictureTop, pictureTop + view.rows)) {
      const [left, right] = [line.indexOf('║'), line.lastIndexOf('║')];
      expect(line.slice(column - 1, column - 1 + view.columns)).toBe(' '.repeat(view.columns));
      const margins = [column - 1 - (left + 1), right - (column - 1 + view.columns)];
      expect(Math.abs(margins[0] - margins[1])).toBeLessThanOrEqual(1);
    }
    // No half blocks: the area is left to the picture.
    expect(stdout.writes.join('')).not.toContain('▀');
  });
});
