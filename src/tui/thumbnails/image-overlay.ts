/**
 * Terminal images (kitty graphics, iTerm2 inline images, sixel) over the grid's tiles. Ink
 * draws text only, so a tile in an image mode keeps its picture area blank and this draws the
 * picture there itself, straight to the terminal, after each of Ink's frames (which end with
 * the cursor on the line below the frame): save the cursor, go up to the picture's line and
 * over to its column, write the image, restore the cursor. Ink rewrites every line of a frame,
 * which wipes iTerm2 and sixel pictures, so they are written again after each frame; kitty
 * keeps an image by its id, sent again only when it changed, and each frame only places it.
 */
import { kittyDelete, kittyImage, kittyPlace } from './kitty.js';
import { iterm2Image, rgbToPng } from './iterm2.js';
import { sixelImage } from './sixel.js';

const ESC = '\u001B';
const SAVE_CURSOR = `${ESC}7`;
const RESTORE_CURSOR = `${ESC}8`;

type ImageMode = 'kitty' | 'iterm2' | 'sixel';

/** One tile's picture on screen: where its area is in Ink's frame, and what to show there. */
export interface ImagePlacement {
  /** The session the tile is of (kitty's image id). */
  id: number;
  /** The picture area's first line and column in the frame, counted from 0. */
  top: number;
  left: number;
  columns: number;
  rows: number;
  picture: { rgb: Uint8Array; width: number; height: number };
}

/** What sixel assumes a cell is, in pixels: sixel cannot scale, so pictures are sent at this size. */
const SIXEL_CELL = { width: 8, height: 16 };

export class ImageOverlay {
  private placements: readonly ImagePlacement[] = [];
  private frameHeight?: number;
  /** kitty: the picture each image id holds now. */
  private readonly sent = new Map<number, ImagePlacement['picture']>();
  private pending = false;

  constructor(
    private readonly mode: ImageMode,
    private readonly write: (text: string) => void,
    private readonly defer: (draw: () => void) => void = (draw) => setImmediate(draw),
  ) {}

  /**
   * The pictures on screen now (none: the grid is gone). Drawn after Ink's next frame, or soon
   * when Ink writes none (a picture changing leaves Ink's text as it was).
   */
  update(placements: readonly ImagePlacement[]): void {
    if (this.mode === 'kitty') {
      const kept = new Set(placements.map((p) => p.id));
      const gone = [...this.sent.keys()].filter((id) => !kept.has(id));
      for (const id of gone) this.sent.delete(id);
      if (gone.length > 0) this.write(gone.map(kittyDelete).join(''));
    }
    this.placements = placements;
    if (this.pending || placements.length === 0) return;
    this.pending = true;
    this.defer(() => {
      if (this.pending) this.draw();
    });
  }

  /** Ink has just written a frame of `height` lines; the cursor is on the line below it. */
  afterFrame(height: number): void {
    this.frameHeight = height;
    this.draw();
  }

  private draw(): void {
    this.pending = false;
    const height = this.frameHeight;
    if (height === undefined || this.placements.length === 0) return;
    let out = SAVE_CURSOR;
    for (const placement of this.placements) {
      const up = height - placement.top;
      if (up <= 0) continue;
      out += `${ESC}[${up}A${ESC}[${placement.left + 1}G${this.image(placement)}${RESTORE_CURSOR}${SAVE_CURSOR}`;
    }
    this.write(`${out}${RESTORE_CURSOR}`);
  }

  private image(placement: ImagePlacement): string {
    const { picture, columns, rows, id } = placement;
    const cells = { columns, rows };
    if (this.mode === 'iterm2') return iterm2Image(picture.rgb, picture.width, picture.height, cells);
    if (this.mode === 'sixel') return sixelImage(picture.rgb, picture.width, picture.height);
    if (this.sent.get(id) === picture) return kittyPlace(id, { ...cells, placementId: 1 });
    this.sent.set(id, picture);
    return kittyImage(rgbToPng(picture.rgb, picture.width, picture.height), picture.width, picture.height, 100, {
      ...cells,
      imageId: id,
      placementId: 1,
    });
  }
}

/** The pixel size a tile's picture is sampled at in an image mode: sharp at any common cell size. */
export function imagePixels(mode: ImageMode, columns: number, rows: number): { width: number; height: number } {
  if (mode === 'sixel') return { width: columns * SIXEL_CELL.width, height: rows * SIXEL_CELL.height };
  return { width: columns * 4, height: rows * 8 };
}

/**
 * `stdout` as Ink sees it, telling `onFrame` the height of each frame written. Ink writes a
 * frame in one write (erasing the last one, then the new one's lines, each ending in a newline),
 * which leaves the cursor on the line below it; no other write of Ink's holds a newline.
 */
export function withFrameHook(stdout: NodeJS.WriteStream, onFrame: (height: number) => void): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const written = (stdout.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    const height = text.split('\n').length - 1;
    if (height > 0) onFrame(height);
    return written;
  };
  return new Proxy(stdout, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
