import { describe, expect, it } from 'vitest';
import { guestState, selectGuests, tagsOf, type PveGuest } from './guests.js';

const guest = (extra: Partial<PveGuest>): PveGuest => ({ id: 'qemu/1', vmid: 1, type: 'qemu', node: 'pve1', status: 'running', ...extra });

describe('Proxmox VE guests', () => {
  it('reads tags as Proxmox VE joins them (";"), and as older versions did ("," or spaces)', () => {
    expect(tagsOf(guest({ tags: 'Web;prod' }))).toEqual(['web', 'prod']);
    expect(tagsOf(guest({ tags: 'a,b c' }))).toEqual(['a', 'b', 'c']);
    expect(tagsOf(guest({}))).toEqual([]);
  });

  it('selects by pool, node and all tags together', () => {
    const guests = [guest({ vmid: 1, pool: 'p', tags: 'x;y' }), guest({ vmid: 2, node: 'pve2', pool: 'p', tags: 'x' })];
    expect(selectGuests(guests, { pvePool: 'p', pveTags: ['x'] }).map((g) => g.vmid)).toEqual([1, 2]);
    expect(selectGuests(guests, { pvePool: 'p', pveNode: 'pve2' }).map((g) => g.vmid)).toEqual([2]);
    expect(selectGuests(guests, { pveTags: ['x', 'y'] }).map((g) => g.vmid)).toEqual([1]);
  });

  it('says the state in common words: a migration lock is Migrating, a guest gone is gone', () => {
    expect(guestState(guest({}))).toEqual({ phase: 'Running', detail: 'running' });
    expect(guestState(guest({ status: 'stopped' })).phase).toBe('Stopped');
    expect(guestState(guest({ lock: 'migrate' })).phase).toBe('Migrating');
    expect(guestState(guest({ status: 'unknown' })).phase).toBe('Unknown');
    expect(guestState(undefined)).toEqual({ phase: 'gone' });
  });
});
