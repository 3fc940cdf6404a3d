// Statistics and the results table of `npm run bench`: printed to the terminal and, with
// --update-doc, written into docs/BENCHMARKS.md between the "bench:results" markers.
import { readFileSync, writeFileSync } from 'node:fs';

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

/** A row of one condition's run in the quiet-and-busy table: its value, its ratio and its verdict. */
function conditionCell(r: BenchResult | undefined): string {
  if (!r) return '';
  const ratio = r.ratio === undefined ? '' : ` (${r.ratio.toFixed(2)}x)`;
  return `${r.value.toFixed(r.digits)} ${r.unit}${ratio} ${verdict(r)}`;
}

/**
 * The rows with a target, one line each, their quiet and busy runs side by side: rows are
 * matched by figure and by their group without its ", quiet" / ", busy" tag.
 */
function conditionRows(results: readonly BenchResult[], conditions: readonly string[]): string[][] {
  const split = (group: string) => {
    const at = group.lastIndexOf(', ');
    return at < 0 ? { group, condition: '' } : { group: group.slice(0, at), condition: group.slice(at + 2) };
  };
  const byKey = new Map<string, { group: string; name: string; target: string; runs: Map<string, BenchResult> }>();
  for (const r of results) {
    if (r.target === undefined) continue;
    const { group, condition } = split(r.group);
    const key = `${group}\0${r.name}`;
    const row = byKey.get(key) ?? { group, name: r.name, target: r.target, runs: new Map() };
    row.runs.set(condition, r);
    byKey.set(key, row);
  }
  return [...byKey.values()].map((row) => [row.group, row.name, row.target, ...conditions.map((c) => conditionCell(row.runs.get(c)))]);
}

const conditionHeadings = (conditions: readonly string[]) => ['', 'figure', 'target', ...conditions];

/** The quiet-and-busy table for the terminal. */
export function terminalConditionTable(results: readonly BenchResult[], conditions: readonly string[]): string {
  const headings = conditionHeadings(conditions);
  const rows = [headings, ...conditionRows(results, conditions)];
  const widths = headings.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The quiet-and-busy table in markdown. */
export function markdownConditionTable(results: readonly BenchResult[], conditions: readonly string[]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  const headings = ['group', ...conditionHeadings(conditions).slice(1)];
  return [line(headings), line(headings.map(() => '---')), ...conditionRows(results, conditions).map(line)].join('\n');
}

const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';

/** Replaces what is between the markers in `file` with the run's machine line and table. */
export function updateDoc(
  file: string,
  results: readonly BenchResult[],
  machine: string,
  date: string,
  conditions: readonly string[] = ['quiet'],
): void {
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${file}: no ${BEGIN} ... ${END} markers`);
  const both = conditions.length > 1 ? `${markdownConditionTable(results, conditions)}\n\nEvery row:\n\n` : '';
  const body = `${BEGIN}\nRun of ${date}:\n\n${machine
    .split('\n')
    .map((l) => `- ${l}`)
    .join('\n')}\n\n${both}${markdownTable(results)}\n`;
  writeFileSync(file, text.slice(0, begin) + body + text.slice(end));
}
