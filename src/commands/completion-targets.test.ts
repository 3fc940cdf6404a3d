import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsoleProvider } from '../targets/index.js';
import { configNames, listedNames } from './completion-targets.js';

// A listing that never answers and one that does: the deadline is the only way out, so it is
// tested on a fake clock (test/integration/completion-cache-cli.test.ts runs it against a silent cluster).
vi.mock('./open/vm-listing.js', () => ({
  listingSources: () => [
    { provider: 'kubevirt', vms: new Promise(() => undefined) },
    { provider: 'demo', vms: Promise.resolve([{ target: 'demo:vm-a' }, { target: 'demo:two\nlines' }]) },
  ],
}));

afterEach(() => {
  vi.useRealTimers();
});

describe('listedNames', () => {
  it('gives what the other listings give once the deadline passes, leaving out a listing that never answers', async () => {
    vi.useFakeTimers();
    let listed: Map<string, string[]> | undefined;
    void listedNames({ defaults: {}, aliases: {} }, {}, [] as ConsoleProvider[], 1500).then((names) => (listed = names));
    await vi.advanceTimersByTimeAsync(1499);
    expect(listed).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(listed).toEqual(new Map([['demo', ['demo:vm-a']]]));
  });
});

describe('configNames', () => {
  it('offers the aliases and the workspaces as @NAME', () => {
    expect(configNames({ defaults: {}, aliases: { db: 'openstack:db-1' }, workspaces: { lab: { targets: [] } } })).toEqual(['@lab', 'db']);
  });
});
