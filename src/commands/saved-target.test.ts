// The targets `S` saves must open the same consoles again, whatever the defaults are then.
import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../targets/registry.js';
import { selectionToSave, targetToSave } from './saved-target.js';

describe('what S saves', () => {
  it('pins each session to its provider, a KubeVirt VM with its namespace, through a sharing wrapper', () => {
    const bare = resolveTarget('vm-a', { namespace: 'prod' });
    expect(targetToSave(bare)).toBe('kubevirt:prod/vm-a');
    expect(targetToSave({ ...bare, inner: bare, input: undefined } as never)).toBe('kubevirt:prod/vm-a');
    expect(targetToSave(resolveTarget('os:web-01', {}))).toBe('os:web-01');
    expect(targetToSave(resolveTarget('web-01', {}, 'openstack'))).toBe('openstack:web-01');
    expect(targetToSave(resolveTarget('demo:a', {}))).toBe('demo:a');
  });
});

describe('the selection S saves', () => {
  it('is the selecting flags under their workspace keys, or nothing when the flags select nothing', () => {
    expect(selectionToSave({ namespace: 'prod', type: 'vnc' })).toBeUndefined();
    expect(selectionToSave({ selector: 'app=web', namespace: 'prod' })).toEqual({
      keys: { selector: 'app=web', namespaces: ['prod'] },
      shownAs: '-l app=web -n prod',
    });
    expect(selectionToSave({ osFilter: '^web-', type: 'auto' })).toEqual({ keys: { osFilter: '^web-' }, shownAs: '--os-filter ^web-' });
  });
});
