import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { confirmOpenCount, parseMaxCount } from './count.js';

/** A terminal whose keyboard is `typed` (ended after it, like Ctrl+D) and whose screen is kept. */
function terminal(typed: string | undefined, tty = true) {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let screen = '';
  stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  if (typed !== undefined) stdin.end(typed);
  return { stdin, stderr, screen: () => screen };
}

describe('confirmOpenCount', () => {
  it('opens up to 12, or up to --max, without asking', async () => {
    const t = terminal(undefined);
    expect(await confirmOpenCount(12, {}, t)).toBe(true);
    expect(await confirmOpenCount(40, { max: 40 }, t)).toBe(true);
    expect(await confirmOpenCount(400, { yes: true }, t)).toBe(true);
    expect(t.screen()).toBe('');
  });

  it('asks above 12 saying how many: y opens, Enter or the end of input does not', async () => {
    for (const [typed, answer] of [
      ['y\n', true],
      ['YES\n', true],
      ['\n', false],
      ['n\n', false],
      ['', false],
    ] as const) {
      const t = terminal(typed);
      expect(await confirmOpenCount(13, {}, t)).toBe(answer);
      expect(t.screen()).toBe('Open 13 consoles at once? [y/N] ');
    }
  });

  it('without a terminal, or above an explicit --max, is a usage error naming the flag', async () => {
    await expect(confirmOpenCount(13, {}, terminal(undefined, false))).rejects.toThrow(UsageError);
    await expect(confirmOpenCount(13, {}, terminal(undefined, false))).rejects.toMatchObject({
      hint: 'add --max 13 (or --yes) to open them all, or select fewer',
    });
    await expect(confirmOpenCount(30, { max: 20 }, terminal('y\n'))).rejects.toThrow('this opens 30 consoles at once, more than --max 20');
  });

  it('--max takes a whole number from 1', () => {
    expect(parseMaxCount('20')).toBe(20);
    for (const bad of ['0', '-1', '2.5', 'lots', '']) expect(() => parseMaxCount(bad)).toThrow(UsageError);
  });
});
