import { describe, expect, it } from 'vitest';
import { alignColumns } from './text-table.js';

describe('alignColumns', () => {
  it('pads every column but the last, two spaces apart', () => {
    expect(
      alignColumns([
        ['TARGET', 'STATE'],
        ['default/vm-a', 'Running'],
      ]),
    ).toEqual(['TARGET        STATE', 'default/vm-a  Running']);
  });

  it('shows control characters in cells as escapes and aligns on what is printed', () => {
    const lines = alignColumns([
      ['TARGET', 'STATE'],
      ['openstack:vm\u001b[31mRED\u0007', 'ACTIVE'],
      ['openstack:web-1', 'SHUTOFF'],
    ]);
    expect(lines.join('\n')).not.toMatch(/[\u001b\u0007]/);
    expect(lines[1]).toBe('openstack:vm\\e[31mRED\\x07  ACTIVE');
    expect(lines[2].indexOf('SHUTOFF')).toBe(lines[1].indexOf('ACTIVE'));
  });

  it('gives no lines for no rows', () => {
    expect(alignColumns([])).toEqual([]);
  });
});
