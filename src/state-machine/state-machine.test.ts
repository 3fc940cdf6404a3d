import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, StateMachine, type Transitions } from './state-machine.js';

type Door = { kind: 'shut' } | { kind: 'open'; by: string } | { kind: 'gone' };

const DOOR: Transitions<Door> = {
  shut: ['open', 'gone'],
  open: ['open', 'shut', 'gone'],
  gone: [],
};

describe('StateMachine', () => {
  it('moves along the table, handing back the state it left', () => {
    const door = new StateMachine<Door>('door', DOOR, { kind: 'shut' });
    expect(door.to({ kind: 'open', by: 'ann' })).toEqual({ kind: 'shut' });
    expect(door.kind).toBe('open');
    expect(door.when('open')?.by).toBe('ann');
    expect(door.when('shut')).toBeUndefined();
  });

  it('stays in a kind with new fields only where the table lists it', () => {
    const door = new StateMachine<Door>('door', DOOR, { kind: 'open', by: 'ann' });
    door.to({ kind: 'open', by: 'bob' });
    expect(door.current).toEqual({ kind: 'open', by: 'bob' });
    door.to({ kind: 'shut' });
    expect(() => door.to({ kind: 'shut' })).toThrow(IllegalTransitionError);
  });

  it('refuses a move the table does not list, loudly, and stays where it was', () => {
    const door = new StateMachine<Door>('door', DOOR, { kind: 'gone' });
    expect(door.can('shut')).toBe(false);
    let refused: unknown;
    try {
      door.to({ kind: 'open', by: 'ann' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(IllegalTransitionError);
    expect(refused).toMatchObject({ machine: 'door', from: 'gone', to: 'open', message: 'door: no move from gone to open' });
    expect(door.current).toEqual({ kind: 'gone' });
  });
});
