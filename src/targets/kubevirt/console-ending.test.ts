import { describe, expect, it } from 'vitest';
import { describeError } from '../../errors.js';
import { describeKubevirtEnding } from './console-ending.js';

const said = (ending: Parameters<typeof describeKubevirtEnding>[0]) => describeError(describeKubevirtEnding(ending));

describe('describeKubevirtEnding', () => {
  it('says what a close without a close frame means on KubeVirt: the VM stopped or another client took its console', () => {
    expect(said({ code: 1006, reason: '', soonAfterUpgrade: false })).toBe(
      'the console closed: the VM stopped, or another client opened its console (KubeVirt keeps one session per VM)',
    );
  });

  it('never speaks of a token (KubeVirt has none), however soon the console closed', () => {
    for (const code of [1005, 1006]) {
      const text = said({ code, reason: '', soonAfterUpgrade: true });
      expect(text).not.toMatch(/token|console URL/);
      expect(text).toMatch(/another client opened its console/);
    }
    expect(said({ code: 1000, reason: '', soonAfterUpgrade: true })).not.toMatch(/token/);
  });

  it('leaves a reset to the network, and close codes with a frame to their own words', () => {
    expect(said({ code: 1006, reason: '', socketErrorCode: 'ECONNRESET', soonAfterUpgrade: false })).toMatch(/connection was reset/);
    expect(said({ code: 1001, reason: 'bye', soonAfterUpgrade: false })).toMatch(/^the console proxy went away: bye/);
  });
});
