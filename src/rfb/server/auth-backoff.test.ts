import { describe, expect, it } from 'vitest';
import { AuthBackoff, addressOf } from './auth-backoff.js';

/** A back-off on a clock the test moves. */
function clocked(options: ConstructorParameters<typeof AuthBackoff>[0] = {}) {
  let now = 1_000_000;
  const backoff = new AuthBackoff({ ...options, now: () => now });
  return { backoff, advance: (ms: number) => (now += ms) };
}

describe('AuthBackoff', () => {
  it('holds an address back 1 s after a wrong password, doubling to 30 s, other addresses untouched', () => {
    const { backoff, advance } = clocked();
    const gate = backoff.gate('10.0.0.5:40000');
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      delays.push(gate.failed());
      advance(delays[i]);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    backoff.gate('10.0.0.5:1').failed();
    expect(backoff.gate('10.0.0.5:40001').wait()).toBe(30000);
    expect(backoff.gate('10.0.0.6:40000').wait()).toBe(0);
  });

  it('lets the address try again once the hold is over, and forgets it on the right password', () => {
    const { backoff, advance } = clocked();
    const gate = backoff.gate('10.0.0.5:40000');
    gate.failed();
    advance(999);
    expect(gate.wait()).toBe(1);
    advance(1);
    expect(gate.wait()).toBe(0);
    gate.succeeded();
    expect(backoff.gate('10.0.0.5:2').failed()).toBe(1000);
  });

  it('logs the first failure of a burst only, and again after the address was forgotten', () => {
    const { backoff, advance } = clocked({ forgetMs: 60_000 });
    const lines: string[] = [];
    const gate = backoff.gate('[::ffff:127.0.0.2]:5000', (line) => lines.push(line));
    for (let i = 0; i < 5; i++) advance(gate.failed());
    expect(lines).toEqual([
      expect.stringMatching(/^wrong VNC password from 127\.0\.0\.2: viewer refused; .*waits 1 s, doubling up to 30 s/),
    ]);
    advance(60_000);
    gate.failed();
    expect(lines).toHaveLength(2);
  });

  it('remembers a bounded number of addresses, forgetting the oldest', () => {
    const { backoff } = clocked({ maxAddresses: 100 });
    for (let i = 0; i < 1000; i++) backoff.gate(`10.0.${i >> 8}.${i & 255}:1`).failed();
    expect(backoff.size).toBe(100);
    expect(backoff.gate('10.0.3.231:1').wait()).toBe(1000);
    expect(backoff.gate('10.0.0.0:1').wait()).toBe(0);
  });

  it('takes the address out of the peer, IPv6 and IPv4-mapped alike', () => {
    expect(addressOf('127.0.0.1:5900')).toBe('127.0.0.1');
    expect(addressOf('[::ffff:10.1.2.3]:1')).toBe('10.1.2.3');
  });

  it('counts an IPv6 source per /64: its other addresses are held back too', () => {
    expect(addressOf('[::1]:5900')).toBe('0:0:0:0::/64');
    expect(addressOf('[2001:db8:1:2::17]:5900')).toBe('2001:db8:1:2::/64');
    expect(addressOf('[2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd]:1')).toBe('2001:db8:1:2::/64');
    const { backoff } = clocked();
    backoff.gate('[2001:db8:1:2::17]:5900').failed();
    expect(backoff.gate('[2001:db8:1:2:ffff::1]:5901').wait()).toBe(1000);
    expect(backoff.gate('[2001:db8:1:3::17]:5900').wait()).toBe(0);
  });
});
