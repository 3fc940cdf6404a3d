import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { SessionLogEntry } from '../proxy/types.js';
import { sessionLogPrinter } from './log-lines.js';

function printed(entries: SessionLogEntry[], verbose = false): string {
  const stream = new PassThrough();
  const print = sessionLogPrinter(stream, verbose);
  for (const entry of entries) print(entry);
  return String(stream.read() ?? '');
}

const entry = (over: Partial<SessionLogEntry>): SessionLogEntry => ({
  time: 0,
  sessionId: 1,
  name: 'demo:vm-a',
  level: 'info',
  message: 'listening',
  ...over,
});

describe('sessionLogPrinter', () => {
  it('prints a name with an escape sequence and a bell as visible text, one line', () => {
    const text = printed([
      entry({ name: 'unix:///run/vm\u001b[31mRED\u0007.sock', level: 'error', message: 'cannot connect\r\n\u001b[2J' }),
    ]);
    expect(text).not.toMatch(/[\u001b\u0007\r]/);
    expect(text).toContain('[unix:///run/vm\\e[31mRED\\x07.sock] error: ');
    expect(text.split('\n')).toHaveLength(2);
  });

  it('leaves out debug lines unless verbose', () => {
    expect(printed([entry({ level: 'debug', message: 'frame' })])).toBe('');
    expect(printed([entry({ level: 'debug', message: 'frame' })], true)).toBe('[demo:vm-a] frame\n');
  });
});
