import { terminalSafe } from '../text/terminal-text.js';

/**
 * Rows as lines with every column but the last padded to its widest cell, two spaces apart.
 * Cells show control characters as visible escapes (a VM or viewer name is data, not terminal
 * commands), and the widths are those of the cells as printed, so the columns still line up.
 */
export function alignColumns(rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const printed = rows.map((row) => row.map(terminalSafe));
  const widths = printed[0].map((_, col) => Math.max(...printed.map((row) => row[col].length)));
  return printed.map((row) => row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]))).join('  '));
}
