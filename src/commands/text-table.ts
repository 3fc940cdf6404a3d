/** Rows as lines with every column but the last padded to its widest cell, two spaces apart. */
export function alignColumns(rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  return rows.map((row) => row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]))).join('  '));
}
