import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { normalizeLabelSelector, parseLabelSelector } from './label-selector.js';

function refusal(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  return expect.unreachable(`"${text}" was accepted`);
}

describe('label selectors', () => {
  it('reads every operator kubectl takes', () => {
    expect(parseLabelSelector('app=web, tier != db,env==prod')).toEqual([
      { key: 'app', operator: 'in', values: ['web'] },
      { key: 'tier', operator: 'notin', values: ['db'] },
      { key: 'env', operator: 'in', values: ['prod'] },
    ]);
    expect(parseLabelSelector('zone in (a, b),zone notin(c),!legacy,example.com/owner,size>3,size<10')).toEqual([
      { key: 'zone', operator: 'in', values: ['a', 'b'] },
      { key: 'zone', operator: 'notin', values: ['c'] },
      { key: 'legacy', operator: 'absent', values: [] },
      { key: 'example.com/owner', operator: 'exists', values: [] },
      { key: 'size', operator: 'gt', values: ['3'] },
      { key: 'size', operator: 'lt', values: ['10'] },
    ]);
    expect(parseLabelSelector('empty=')).toEqual([{ key: 'empty', operator: 'in', values: [''] }]);
  });

  it('spells a selector one way for the API', () => {
    expect(normalizeLabelSelector(' app == web ,tier notin ( db , cache ), ! old ')).toBe('app=web,tier notin (db,cache),!old');
  });

  it('refuses bad syntax with one line naming the offending part', () => {
    expect(refusal('')).toBe('bad label selector "": it is empty');
    expect(refusal('app=web,')).toBe('bad label selector "app=web,": expected a label key, found the end');
    expect(refusal('=web')).toBe('bad label selector "=web": expected a label key, found "="');
    expect(refusal('app=web=x')).toBe('bad label selector "app=web=x": expected a comma after "app=web", found "="');
    expect(refusal('tier in db')).toBe('bad label selector "tier in db": expected "(" after "tier in", found "db"');
    expect(refusal('tier in ()')).toBe('bad label selector "tier in ()": "tier in ()" has no values');
    expect(refusal('tier in (a b)')).toBe('bad label selector "tier in (a b)": expected "," or ")" in "tier in (...)", found "b"');
    expect(refusal('app web')).toMatch(/expected an operator \(=, ==, !=, in, notin\) or a comma after "app", found "web"$/);
    expect(refusal('app=-web')).toMatch(/"-web" is not a label value/);
    expect(refusal('Bad Prefix/app')).toMatch(/expected an operator .* found "Prefix\/app"/);
    expect(refusal('Example.com/app')).toMatch(/"Example.com\/app" has a bad prefix/);
    expect(refusal(`${'a'.repeat(64)}=x`)).toMatch(/is not a label key/);
    expect(refusal('size>big')).toMatch(/"big" after "size>" is not a whole number/);
    expect(refusal('!app=web')).toMatch(/expected a comma after "!app", found "="/);
  });

  it('gives the syntax in the hint', () => {
    expect(() => parseLabelSelector('(')).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/key=value, key!=value, key in \(a,b\)/) }),
    );
  });
});
