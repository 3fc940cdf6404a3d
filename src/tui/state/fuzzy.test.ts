import { describe, expect, it } from 'vitest';
import { fuzzyFilter, fuzzyMatch } from './fuzzy.js';

const score = (query: string, text: string) => fuzzyMatch(query, text)?.score ?? Number.NEGATIVE_INFINITY;

describe('fuzzyMatch', () => {
  it('matches the query as a subsequence, ignoring case', () => {
    expect(fuzzyMatch('vma', 'demo:VM-a')?.positions).toEqual([5, 6, 8]);
    expect(fuzzyMatch('dva', 'demo:vm-a')).toBeDefined();
  });

  it('does not match characters out of order, missing, or a query longer than the text', () => {
    expect(fuzzyMatch('av', 'demo:vm-a')).toBeUndefined();
    expect(fuzzyMatch('vmz', 'demo:vm-a')).toBeUndefined();
    expect(fuzzyMatch('demo:vm-a1', 'demo:vm-a')).toBeUndefined();
  });

  it('matches everything with an empty query', () => {
    expect(fuzzyMatch('', 'anything')).toEqual({ score: 0, positions: [] });
  });

  it('ranks contiguous characters above scattered ones', () => {
    expect(score('web', 'prod/web-1')).toBeGreaterThan(score('web', 'prod/hello-world-backup'));
    expect(score('db', 'ns/db-1')).toBeGreaterThan(score('db', 'ns/dashboard'));
  });

  it('ranks word starts above the middle of words', () => {
    // "vb" on the starts of vm and b (after -) beats v and b inside "novabox".
    expect(score('vb', 'ns/vm-b')).toBeGreaterThan(score('vb', 'ns/novabox'));
    expect(score('wo', 'prod/webOne')).toBeGreaterThan(score('wo', 'prod/twowheels'));
  });

  it('places the characters where they score best, not at their first occurrence', () => {
    // A greedy match would take the "a" of "staging"; the best placement is the word "api".
    expect(fuzzyMatch('api', 'staging/api-1')?.positions).toEqual([8, 9, 10]);
    expect(fuzzyMatch('vm1', 'vm/demo-vm-1')?.positions).toEqual([8, 9, 11]);
  });

  it('costs a long gap no more than a bounded amount, so a match far in still counts', () => {
    const far = fuzzyMatch('ab', `a${'x'.repeat(200)}b`);
    expect(far).toBeDefined();
    expect(far!.score).toBeGreaterThan(0);
  });
});

describe('fuzzyFilter', () => {
  const targets = ['default/vm-a', 'default/vm-b', 'prod/web-1', 'prod/web-2', 'openstack:webserver', 'demo:vm-a'];

  it('keeps every item in its order for an empty query', () => {
    expect(fuzzyFilter(targets, '', (t) => t).map((r) => r.item)).toEqual(targets);
  });

  it('drops what does not match and puts the best first', () => {
    const result = fuzzyFilter(targets, 'web', (t) => t).map((r) => r.item);
    expect(result).toEqual(['prod/web-1', 'prod/web-2', 'openstack:webserver']);
  });

  it('breaks ties by the shorter text, then by the given order', () => {
    expect(fuzzyFilter(['x/vm-a', 'vm-a', 'y/vm-a'], 'vm', (t) => t).map((r) => r.item)).toEqual(['vm-a', 'x/vm-a', 'y/vm-a']);
  });
});
