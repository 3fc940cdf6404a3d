/**
 * Pictures as sixel (DEC's bitmap graphics): `ESC P q`, raster attributes `"1;1;W;H`, colour
 * registers `#n;2;r;g;b` with channels in percent (0-100), then bands six pixel rows tall: for
 * each colour in the band `#n` and one character per column (63 + a bit per row, top row the
 * lowest bit), `$` back to the band's start for the next colour, `-` to the next band;
 * `ESC \` ends it. Runs of one character are written `!count char`. Pure.
 *
 * Colours are cut to 6 levels a channel (216 registers, as the xterm cube): enough for a
 * thumbnail, and within the 256 registers every sixel terminal has.
 */

const ESC = '\u001B';
/** A run at least this long is written as `!count char`. */
const RUN_MIN = 4;

function level(value: number): number {
  return Math.round((value * 5) / 255);
}

function register(rgb: Uint8Array, at: number): number {
  return 36 * level(rgb[at]) + 6 * level(rgb[at + 1]) + level(rgb[at + 2]);
}

function registerDefinition(n: number): string {
  const percent = (l: number) => Math.round((l * 100) / 5);
  return `#${n};2;${percent(Math.floor(n / 36))};${percent(Math.floor(n / 6) % 6)};${percent(n % 6)}`;
}

function runLength(chars: string[]): string {
  let out = '';
  for (let i = 0; i < chars.length;) {
    let j = i + 1;
    while (j < chars.length && chars[j] === chars[i]) j++;
    const count = j - i;
    out += count >= RUN_MIN ? `!${count}${chars[i]}` : chars[i].repeat(count);
    i = j;
  }
  return out;
}

/** `rgb` (width x height pixels, R G B bytes) as one sixel image. */
export function sixelImage(rgb: Uint8Array, width: number, height: number): string {
  const registers = new Int16Array(width * height);
  const used = new Set<number>();
  for (let p = 0; p < width * height; p++) {
    registers[p] = register(rgb, p * 3);
    used.add(registers[p]);
  }
  let out = `${ESC}Pq"1;1;${width};${height}`;
  for (const n of [...used].sort((a, b) => a - b)) out += registerDefinition(n);
  for (let top = 0; top < height; top += 6) {
    const bandRows = Math.min(6, height - top);
    const colours = new Set<number>();
    for (let y = top; y < top + bandRows; y++) for (let x = 0; x < width; x++) colours.add(registers[y * width + x]);
    const passes: string[] = [];
    for (const n of [...colours].sort((a, b) => a - b)) {
      const chars: string[] = [];
      for (let x = 0; x < width; x++) {
        let bits = 0;
        for (let row = 0; row < bandRows; row++) if (registers[(top + row) * width + x] === n) bits |= 1 << row;
        chars.push(String.fromCharCode(63 + bits));
      }
      passes.push(`#${n}${runLength(chars)}`);
    }
    out += passes.join('$');
    out += top + 6 < height ? '-' : '';
  }
  return `${out}${ESC}\\`;
}
