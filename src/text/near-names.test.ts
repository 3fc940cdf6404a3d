import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearNames } from './near-names.js';

describe('near names', () => {
  it('counts insertions, deletions, replacements and swapped neighbours as one edit each', () => {
    expect(editDistance('web1', 'web1')).toBe(0);
    expect(editDistance('web', 'web1')).toBe(1);
    expect(editDistance('wbe1', 'web1')).toBe(1);
    expect(editDistance('wex1', 'web1')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('offers the names a slip away, nearest first, and nothing for a name far from all', () => {
    const domains = ['web1', 'web2', 'db-primary', 'mail'];
    expect(nearNames('wbe1', domains)).toEqual(['web1']);
    expect(nearNames('web3', domains)).toEqual(['web1', 'web2']);
    expect(nearNames('db-primray', domains)).toEqual(['db-primary']);
    expect(nearNames('Mail', domains)).toEqual(['mail']);
    expect(nearNames('ldap', domains)).toEqual([]);
    expect(didYouMean('web3', domains)).toBe('did you mean "web1" or "web2"?');
    expect(didYouMean('ldap', domains)).toBeUndefined();
  });
});
