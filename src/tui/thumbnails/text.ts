/**
 * A serial console's tile: the last lines of what it printed, as a terminal would have shown
 * them, reduced to plain text. Escape sequences (colours, cursor moves, titles) are dropped,
 * a carriage return goes back to the line's start (later text overwrites), backspace steps
 * back, tabs go to the next multiple of 8, long lines wrap at the tile's width (a wide
 * character takes two columns, as on a terminal), format characters are dropped. Pure.
 */

import { displayColumns } from '../layout/display-safe.js';

/** CSI (`ESC [` ... final), OSC (`ESC ]` ... BEL or ST), DCS/APC/PM/SOS (... ST), and other two-byte escapes. */
const ESCAPE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[P_^X][^\u001B]*(?:\u001B\\)?|[ -/]*[0-~])?/g;

/** Format characters (bidi controls, zero-width ones): a terminal shows nothing for them. */
const FORMAT = /^[\p{Cf}\u2028\u2029]$/u;

/** The last `rows` lines of `text`, each at most `columns` columns wide, as plain text. */
export function lastLines(text: string, rows: number, columns: number): string[] {
  if (rows <= 0 || columns <= 0) return [];
  const lines: string[] = [];
  let line: string[] = [];
  let column = 0;
  const newline = () => {
    lines.push(line.join('').trimEnd());
    line = [];
    column = 0;
  };
  for (const ch of text.replace(ESCAPE, '')) {
    if (ch === '\n') newline();
    else if (ch === '\r') column = 0;
    else if (ch === '\b') column = Math.max(0, column - 1);
    else if (ch === '\t') column = Math.min(columns, (Math.floor(column / 8) + 1) * 8);
    else if (ch < ' ' || (ch >= '\u007f' && ch <= '\u009f') || FORMAT.test(ch)) continue;
    else {
      // A wide character takes two cells (the second left empty); a combining mark joins the cell before.
      const width = ch < '\u0300' ? 1 : displayColumns(ch);
      if (width === 0) {
        if (column > 0) line[column - 1] = (line[column - 1] ?? ' ') + ch;
        continue;
      }
      if (column + width > columns) newline();
      while (line.length < column) line.push(' ');
      line[column++] = ch;
      if (width === 2) line[column++] = '';
    }
  }
  // A last line without its newline (a prompt) counts; the empty line after a final newline does not.
  if (line.length > 0) newline();
  return lines.slice(-rows);
}
