// Statistics and the results table of `npm run bench`: printed to the terminal and, with
// --update-doc, written into docs/BENCHMARKS.md between the "bench:results" markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolated quantile (q in 0..1) of a non-empty list. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

export const MiB = 1024 * 1024;

/**
 * One line of the results table.
 * - `value`, `unit`: the figure (already in `unit`);
 * - `reference`: what it is compared with, e.g. "direct 310 MB/s" (optional);
 * - `ratio`: the figure against its reference, shown as N.NNx (optional);
 * - `target`: e.g. ">= 0.9x"; `pass`: whether it was met (undefined: figure for information).
 */
export interface BenchResult {
  group: string;
  name: string;
  value: number;
  unit: string;
  digits: number;
  reference?: string;
  ratio?: number;
  target?: string;
  pass?: boolean;
}

export function result({
  group,
  name,
  value,
  unit,
  digits = 1,
  reference,
  ratio,
  target,
  pass,
}: Omit<BenchResult, 'digits'> & { digits?: number }): BenchResult {
  return { group, name, value, unit, digits, reference, ratio, target, pass };
}

function verdict(r: BenchResult): string {
  if (r.pass === undefined) return 'info';
  return r.pass ? 'PASS' : 'MISS';
}

function cells(r: BenchResult): string[] {
  return [
    r.group,
    r.name,
    `${r.value.toFixed(r.digits)} ${r.unit}`,
    r.reference ?? '',
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
    r.target ?? '',
    verdict(r),
  ];
}

const HEADINGS = ['', 'figure', 'value', 'compared with', 'ratio', 'target', ''];

/** Fixed-width table for the terminal. */
export function terminalTable(results: readonly BenchResult[]): string {
  const rows = [HEADINGS, ...results.map(cells)];
  const widths = HEADINGS.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** GitHub-flavoured markdown table. */
export function markdownTable(results: readonly BenchResult[]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  const headings = ['group', ...HEADINGS.slice(1, -1), 'result'];
  return [line(headings), line(headings.map(() => '---')), ...results.map((r) => line(cells(r)))].join('\n');
}

/** nproc, CPU model, Node.js version and the load average when the run started. */
export function machineDescription(loadAtStart: readonly number[]): string {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {
    // not Linux
  }
  return `${cpus().length} CPUs (${model}), Node.js ${process.version}, ${process.platform}-${process.arch}, load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at start`;
}

const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';

/** Replaces what is between the markers in `file` with the run's machine line and table. */
export function updateDoc(file: string, results: readonly BenchResult[], machine: string, date: string): void {
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${file}: no ${BEGIN} ... ${END} markers`);
  const body = `${BEGIN}\nRun of ${date} on ${machine}.\n\n${markdownTable(results)}\n`;
  writeFileSync(file, text.slice(0, begin) + body + text.slice(end));
}
