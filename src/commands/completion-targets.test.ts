import { afterEach, describe, expect, it, vi } from 'vitest';
import { completionTargets } from './completion-targets.js';

// A listing that never answers and one that does: the deadline is the only way out, so it is
// tested on a fake clock (test/integration/completion-cli.test.ts runs it against a silent cluster).
vi.mock('./open/vm-listing.js', () => ({
  listingSources: () => [{ vms: new Promise(() => undefined) }, { vms: Promise.resolve([{ target: 'demo:vm-a' }]) }],
}));

afterEach(() => {
  vi.useRealTimers();
});

describe('completionTargets', () => {
  it('offers what the other listings and the config give once the deadline passes, leaving out a listing that never answers', async () => {
    vi.useFakeTimers();
    let offered: string[] | undefined;
    void completionTargets({ defaults: {}, aliases: { db: 'openstack:db-1' } }, {}, 1500).then((names) => (offered = names));
    await vi.advanceTimersByTimeAsync(1499);
    expect(offered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(offered).toEqual(['db', 'demo:vm-a']);
  });
});
