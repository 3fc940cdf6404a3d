import { describe, expect, it } from 'vitest';
import { splitTargetsAndKeys } from './send.js';

const names = (split: ReturnType<typeof splitTargetsAndKeys>) => ({
  targets: split.targets,
  keys: split.keys.map((key) => (key.kind === 'break' ? 'break' : key.chord.text)),
});

describe('send TARGET... KEY...', () => {
  it('takes the trailing words that name keys as keys, the first word always as a target', () => {
    expect(names(splitTargetsAndKeys(['vm-a', 'vm-b', 'ctrl-alt-delete', 'f12'], []))).toEqual({
      targets: ['vm-a', 'vm-b'],
      keys: ['ctrl-alt-delete', 'f12'],
    });
    expect(names(splitTargetsAndKeys(['esc', 'esc'], []))).toEqual({ targets: ['esc'], keys: ['esc'] });
    expect(names(splitTargetsAndKeys(['vm-a#serial', 'break'], []))).toEqual({ targets: ['vm-a#serial'], keys: ['break'] });
  });

  it('after -- every word is a key', () => {
    expect(names(splitTargetsAndKeys(['vm-a', 'esc', 'ret'], ['esc', 'ret']))).toEqual({ targets: ['vm-a'], keys: ['esc', 'ret'] });
  });

  it('names a last word that is no key, with the names near it', () => {
    expect(() => splitTargetsAndKeys(['vm-a', 'ctrl-alt-delet'], [])).toThrow('unknown key "delet" in "ctrl-alt-delet"');
    expect(() => splitTargetsAndKeys(['vm-a'], [])).toThrow(/name a target and the keys/);
  });
});
