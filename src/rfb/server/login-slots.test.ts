import { describe, expect, it } from 'vitest';
import { LoginSlots } from './login-slots.js';

/** Slots whose evictions are written down by name. */
function slots(perAddress: number, max: number) {
  const evicted: string[] = [];
  const all = new LoginSlots({ perAddress, max });
  const enter = (address: string, name: string) => all.enter(address, () => evicted.push(name));
  return { all, enter, evicted };
}

describe('LoginSlots', () => {
  it('over an address share, closes that address own least advanced, oldest connection, never the newcomer', () => {
    const { all, enter, evicted } = slots(3, 100);
    const talking = enter('a', 'a1');
    talking.progressed('spoke');
    enter('a', 'a2');
    enter('a', 'a3');
    enter('a', 'a4');
    expect(evicted).toEqual(['a2']);
    enter('a', 'a5');
    expect(evicted).toEqual(['a2', 'a3']);
    expect(all.size).toBe(3);
    expect(all.full('a')).toBe(true);
    expect(all.full('b')).toBe(false);
  });

  it('over the total, closes one of the address holding the most: a new address always gets in', () => {
    const { all, enter, evicted } = slots(8, 6);
    for (let i = 0; i < 5; i++) enter('flood', `f${i}`);
    enter('owner', 'o1');
    enter('other', 'x1');
    expect(evicted).toEqual(['f0']);
    expect(all.size).toBe(6);
  });

  it('frees the slot of a connection that logged in or went', () => {
    const { all, enter, evicted } = slots(2, 10);
    enter('a', 'a1').leave();
    enter('a', 'a2');
    enter('a', 'a3');
    expect(evicted).toEqual([]);
    expect(all.size).toBe(2);
  });

  it('prefers closing one that was not asked the password yet', () => {
    const { enter, evicted } = slots(2, 10);
    enter('a', 'a1').progressed('asked');
    enter('a', 'a2').progressed('spoke');
    enter('a', 'a3');
    expect(evicted).toEqual(['a2']);
  });
});
