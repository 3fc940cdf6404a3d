import { describe, expect, it } from 'vitest';
import { SharedConsoleUrl } from './shared-console-url.js';

function setup(maxAgeMs = 1_000) {
  let now = 0;
  let asked = 0;
  const shared = new SharedConsoleUrl(maxAgeMs, () => now);
  const ask = () => Promise.resolve(`url-${++asked}`);
  return { shared, ask, asked: () => asked, advance: (ms: number) => (now += ms) };
}

describe('SharedConsoleUrl', () => {
  it('shares one URL, and the request for it, while it is young; asks again once it has aged', async () => {
    const { shared, ask, asked, advance } = setup();
    const burst = [shared.get(ask), shared.get(ask), shared.get(ask)];
    expect(await Promise.all(burst.map((g) => g.url))).toEqual(['url-1', 'url-1', 'url-1']);
    advance(999);
    expect(await shared.get(ask).url).toBe('url-1');
    advance(1);
    expect(await shared.get(ask).url).toBe('url-2');
    expect(asked()).toBe(2);
  });

  it('starts from a URL offered by the pre-flight, aged from when it was obtained', async () => {
    const { shared, ask, advance } = setup();
    shared.offer('probed', 0);
    advance(500);
    expect(await shared.get(ask).url).toBe('probed');
    advance(500);
    expect(await shared.get(ask).url).toBe('url-1');
  });

  it('forgets a refused URL, but not one that already replaced it', async () => {
    const { shared, ask } = setup();
    const first = shared.get(ask);
    shared.drop(first);
    const second = shared.get(ask);
    expect(await second.url).toBe('url-2');
    shared.drop(first); // a late refusal of the old token
    expect(shared.get(ask)).toBe(second);
  });

  it('forgets a request that failed, so the next connection asks again', async () => {
    const { shared, ask } = setup();
    const failing = shared.get(() => Promise.reject(new Error('Nova said no')));
    await expect(failing.url).rejects.toThrow('Nova said no');
    expect(await shared.get(ask).url).toBe('url-1');
  });
});
