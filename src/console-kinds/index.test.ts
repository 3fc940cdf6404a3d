// `--type auto` and a console that names no type follow the kinds' data, not the order a
// provider happens to list its types in.
import { describe, expect, it } from 'vitest';
import { fixedConsoleType } from '../targets/console-type.js';
import { CONSOLE_TYPES, DEFAULT_CONSOLE_TYPE, autoOrder } from './index.js';

describe('console kinds', () => {
  it('orders what auto may pick by autoRank and drops names no kind has', () => {
    expect(autoOrder(['serial', 'spice', 'nope', 'vnc'])).toEqual(['vnc', 'spice', 'serial']);
    expect(DEFAULT_CONSOLE_TYPE).toBe('vnc');
  });

  it('auto on a provider that cannot look at the VM picks by autoRank, not by its list order', () => {
    expect(fixedConsoleType({ consoleType: 'auto' }, ['serial', 'spice', 'vnc'])).toBe('vnc');
    expect(fixedConsoleType({}, ['serial', 'spice'])).toBe('spice');
    expect(fixedConsoleType({ consoleType: 'serial' }, ['vnc', 'serial'])).toBe('serial');
  });

  it('no two kinds share an id (`#TYPE` names one kind)', () => {
    expect(new Set(CONSOLE_TYPES).size).toBe(CONSOLE_TYPES.length);
  });
});
