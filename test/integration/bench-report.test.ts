// The bench's quiet-and-busy table (scripts/bench/report.ts): one line per row with a target,
// its quiet and busy runs side by side.
import { describe, expect, it } from 'vitest';
import { markdownConditionTable, result } from '../../scripts/bench/report.js';

describe('the quiet-and-busy table', () => {
  it('pairs each row with a target across the runs by group and figure, and leaves rows without a target out', () => {
    const row = (group: string, value: number, ratio: number, pass: boolean) =>
      result({ group, name: 'throughput', value, unit: 'MiB/s', digits: 0, ratio, target: '>= 1.20x', pass });
    const table = markdownConditionTable(
      [
        row('virtctl, quiet', 900, 1.3, true),
        result({ group: 'virtctl, quiet', name: 'echo p50', value: 0.1, unit: 'ms' }),
        row('virtctl, busy', 500, 0.9, false),
      ],
      ['quiet', 'busy'],
    );
    expect(table.split('\n')).toEqual([
      '| group | figure | target | quiet | busy |',
      '| --- | --- | --- | --- | --- |',
      '| virtctl | throughput | >= 1.20x | 900 MiB/s (1.30x) PASS | 500 MiB/s (0.90x) MISS |',
    ]);
  });
});
