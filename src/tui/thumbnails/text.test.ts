import { describe, expect, it } from 'vitest';
import { lastLines } from './text.js';

describe('lastLines', () => {
  it('keeps the last lines, without escape sequences', () => {
    const text = 'one\r\n\u001B[1;32mtwo\u001B[0m\r\n\u001B]0;title\u0007three\r\nlogin: ';
    expect(lastLines(text, 3, 20)).toEqual(['two', 'three', 'login:']);
  });

  it('lets a carriage return overwrite, backspace step back and tabs align', () => {
    expect(lastLines('progress 10%\rprogress 99%\nab\bc\n\tx\n', 5, 20)).toEqual(['progress 99%', 'ac', '        x']);
  });

  it('wraps long lines at the width and drops other control characters', () => {
    expect(lastLines('abcdefg\u0007h\n', 5, 3)).toEqual(['abc', 'def', 'gh']);
  });

  it('gives nothing for no room', () => {
    expect(lastLines('x', 0, 10)).toEqual([]);
  });
});
