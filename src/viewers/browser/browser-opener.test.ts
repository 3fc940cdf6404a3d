import { describe, expect, it } from 'vitest';
import { windowsUrlHandler } from './browser-opener.js';

describe('the Windows URL handler', () => {
  it('is rundll32.exe under %SystemRoot%, never a bare name the current directory could answer', () => {
    expect(windowsUrlHandler({ SystemRoot: 'D:\\WINNT' })).toBe('D:\\WINNT\\System32\\rundll32.exe');
    expect(windowsUrlHandler({})).toBe('C:\\Windows\\System32\\rundll32.exe');
  });
});
