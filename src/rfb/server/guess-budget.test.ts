import { describe, expect, it } from 'vitest';
import { GuessBudget } from './guess-budget.js';

describe('GuessBudget', () => {
  it('checks a burst, then one guess per refill, whatever address each comes from', () => {
    let now = 0;
    const budget = new GuessBudget({ burst: 3, refillMs: 500, now: () => now });
    const spent = Array.from({ length: 5 }, (_, i) => budget.spend(`10.0.0.${i}`));
    expect(spent).toEqual([true, true, true, false, false]);
    expect(budget.wait('10.0.0.9')).toBe(500);
    now += 499;
    expect(budget.spend('10.0.0.9')).toBe(false);
    now += 1;
    expect(budget.spend('10.0.0.9')).toBe(true);
    expect(budget.spend('10.0.0.10')).toBe(false);
    // A long pause refills the burst, no more.
    now += 60_000;
    expect(Array.from({ length: 4 }, (_, i) => budget.spend(`10.0.1.${i}`))).toEqual([true, true, true, false]);
  });

  it('lets an address that gave the right password through with the budget spent, and remembers a bounded number', () => {
    const budget = new GuessBudget({ burst: 1, refillMs: 1_000_000, knownMax: 2, now: () => 0 });
    budget.knownGood('owner');
    expect(budget.spend('stranger')).toBe(true);
    expect(budget.spend('stranger')).toBe(false);
    expect(budget.spend('owner')).toBe(true);
    expect(budget.wait('owner')).toBe(0);
    budget.knownGood('b');
    budget.knownGood('c');
    expect(budget.spend('owner')).toBe(false);
  });
});
