import { describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

describe('vconsole open --grid / --thumbnails', () => {
  it('bad input: an unknown --thumbnails mode, or VCONSOLE_THUMBNAILS, is one usage line', async () => {
    const flag = await runVconsole(['open', 'demo:vm-a', '--grid', '--thumbnails', 'bogus', '--no-tui']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/invalid --thumbnails "bogus".*truecolor, 256, kitty, iterm2, sixel, none/);
    const env = await runVconsole(['open', 'demo:vm-a', '--grid', '--no-tui', '--viewer', 'none'], { VCONSOLE_THUMBNAILS: 'pretty' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/invalid VCONSOLE_THUMBNAILS "pretty"/);
    for (const r of [flag, env]) expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  });
});
