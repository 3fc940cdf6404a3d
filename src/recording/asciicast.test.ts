import { describe, expect, it } from 'vitest';
import { DEFAULT_IDLE_TIME_LIMIT_S, capIdleTime, idleTimeLimitOf, parseAsciicast } from './asciicast.js';

const at = (...seconds: number[]) => seconds.map((s, i) => ({ seconds: s, kind: 'o' as const, text: String(i) }));

describe('the idle time limit of a replay', () => {
  it('shortens each pause past the limit to it, the lead-in included, and keeps shorter ones', () => {
    const played = capIdleTime(at(30, 30.5, 100, 101), 2);
    expect(played.map((e) => e.seconds)).toEqual([2, 2.5, 4.5, 5.5]);
    expect(played.map((e) => e.text)).toEqual(['0', '1', '2', '3']);
    expect(capIdleTime(at(0.5, 1, 1.5), 2).map((e) => e.seconds)).toEqual([0.5, 1, 1.5]);
  });

  it("takes --idle-time-limit, else the header's idle_time_limit, else its default", () => {
    const { header } = parseAsciicast('{"version":2,"width":80,"height":24,"timestamp":0,"idle_time_limit":0.5}\n');
    expect(idleTimeLimitOf(header, 7)).toBe(7);
    expect(idleTimeLimitOf(header, undefined)).toBe(0.5);
    const plain = parseAsciicast('{"version":2,"width":80,"height":24,"timestamp":0}\n').header;
    expect(idleTimeLimitOf(plain, undefined)).toBe(DEFAULT_IDLE_TIME_LIMIT_S);
    const odd = parseAsciicast('{"version":2,"width":80,"height":24,"timestamp":0,"idle_time_limit":"soon"}\n').header;
    expect(idleTimeLimitOf(odd, undefined)).toBe(DEFAULT_IDLE_TIME_LIMIT_S);
  });
});
