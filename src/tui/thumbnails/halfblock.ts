/**
 * Pictures as text: each cell is an upper half block (U+2580) whose foreground colour is the
 * top pixel and whose background is the bottom one, so a cell holds two pixels, one above the
 * other. Works in every terminal with colour; 24-bit SGR (38;2 / 48;2) where the terminal has
 * truecolor, the xterm 256-colour palette (38;5 / 48;5) otherwise. Pure functions.
 */

const UPPER_HALF_BLOCK = '\u2580';
const ESC = '\u001B';
const RESET = `${ESC}[0m`;

export type HalfBlockColours = 'truecolor' | '256';

/** The six levels of each channel in the xterm 256-colour cube (indices 16-231). */
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255];

function nearestCubeLevel(value: number): number {
  if (value < 48) return 0;
  if (value < 115) return 1;
  return Math.min(5, Math.floor((value - 35) / 40));
}

/**
 * The xterm 256-colour index nearest to (r, g, b): the 6x6x6 cube (16-231) or the grey ramp
 * (232-255: 8, 18, ..., 238), whichever is closer in RGB distance. The 16 system colours are
 * never used: terminals theme them.
 */
export function xterm256(r: number, g: number, b: number): number {
  const ri = nearestCubeLevel(r);
  const gi = nearestCubeLevel(g);
  const bi = nearestCubeLevel(b);
  const cube = 16 + 36 * ri + 6 * gi + bi;
  const cubeDistance = (CUBE_LEVELS[ri] - r) ** 2 + (CUBE_LEVELS[gi] - g) ** 2 + (CUBE_LEVELS[bi] - b) ** 2;
  const mean = (r + g + b) / 3;
  const greyStep = Math.min(23, Math.max(0, Math.round((mean - 8) / 10)));
  const grey = 8 + 10 * greyStep;
  const greyDistance = (grey - r) ** 2 + (grey - g) ** 2 + (grey - b) ** 2;
  return greyDistance < cubeDistance ? 232 + greyStep : cube;
}

/** The RGB value a 256-colour index of the cube or grey ramp stands for. */
export function xterm256Rgb(index: number): [number, number, number] {
  if (index >= 232) {
    const v = 8 + 10 * (index - 232);
    return [v, v, v];
  }
  const i = index - 16;
  return [CUBE_LEVELS[Math.floor(i / 36)], CUBE_LEVELS[Math.floor(i / 6) % 6], CUBE_LEVELS[i % 6]];
}

function colourCode(colours: HalfBlockColours, ground: 38 | 48, rgb: Uint8Array, at: number): string {
  if (colours === 'truecolor') return `${ground};2;${rgb[at]};${rgb[at + 1]};${rgb[at + 2]}`;
  return `${ground};5;${xterm256(rgb[at], rgb[at + 1], rgb[at + 2])}`;
}

/**
 * `rgb` (width x height pixels, R G B bytes) as ceil(height / 2) lines of `width` half-block
 * cells. A colour is written only when it differs from the cell before; each line ends with a
 * reset, so nothing bleeds into what follows. An odd last row gets black below it.
 */
export function halfBlockLines(rgb: Uint8Array, width: number, height: number, colours: HalfBlockColours): string[] {
  const lines: string[] = [];
  const black = new Uint8Array(3);
  for (let y = 0; y < height; y += 2) {
    let line = '';
    let fg = '';
    let bg = '';
    for (let x = 0; x < width; x++) {
      const top = colourCode(colours, 38, rgb, (y * width + x) * 3);
      const bottom = y + 1 < height ? colourCode(colours, 48, rgb, ((y + 1) * width + x) * 3) : colourCode(colours, 48, black, 0);
      const codes = [top === fg ? '' : top, bottom === bg ? '' : bottom].filter(Boolean);
      if (codes.length > 0) line += `${ESC}[${codes.join(';')}m`;
      fg = top;
      bg = bottom;
      line += UPPER_HALF_BLOCK;
    }
    lines.push(line + RESET);
  }
  return lines;
}
