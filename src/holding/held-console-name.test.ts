import { describe, expect, it } from 'vitest';
import { heldConsoleName } from './held-console-name.js';

describe('heldConsoleName', () => {
  const vmA = {
    provider: 'kubevirt',
    name: 'default/vm-a',
    facts: { identity: 'kubevirt:https://10.0.0.1:6443|default/vm-a', consoleType: 'vnc' },
  };

  it('is the same for the same console, whatever else differs', () => {
    expect(heldConsoleName({ ...vmA })).toBe(heldConsoleName(vmA));
    expect(heldConsoleName(vmA)).toMatch(/^kubevirt-vnc-[0-9a-f]{32}$/);
  });

  it('differs by kind, by VM and by cluster', () => {
    const names = new Set([
      heldConsoleName(vmA),
      heldConsoleName({ ...vmA, facts: { ...vmA.facts, consoleType: 'serial' } }),
      heldConsoleName({ ...vmA, facts: { ...vmA.facts, identity: 'kubevirt:https://10.0.0.1:6443|default/vm-b' } }),
      heldConsoleName({ ...vmA, facts: { ...vmA.facts, identity: 'kubevirt:https://10.9.9.9:6443|default/vm-a' } }),
    ]);
    expect(names.size).toBe(4);
  });

  it('falls back to the provider and name without an identity', () => {
    expect(heldConsoleName({ provider: 'tcp', name: 'tcp://127.0.0.1:5900', facts: { consoleType: 'vnc' } })).toBe(
      heldConsoleName({ provider: 'tcp', name: 'tcp://127.0.0.1:5900', facts: { identity: undefined, consoleType: 'vnc' } }),
    );
  });

  it('never spells out the identity, which may hold a token', () => {
    const name = heldConsoleName({
      provider: 'websocket',
      name: 'ws://h:6080/',
      facts: { identity: 'ws://h:6080/?token=s3cret', consoleType: 'vnc' },
    });
    expect(name).not.toMatch(/s3cret|token|6080/);
    expect(name).toMatch(/^websocket-vnc-[0-9a-f]{32}$/);
  });

  it('keeps only letters, digits and dashes of the provider and kind', () => {
    expect(heldConsoleName({ provider: '../evil/x', name: 'n', facts: { consoleType: 'v n/c' } })).toMatch(/^-evil-x-v-n-c-[0-9a-f]{32}$/);
  });
});
