import { describe, expect, it } from 'vitest';
import { taskkillCommand } from './process-tree.js';

describe("a Windows viewer's tree", () => {
  it('is ended with taskkill /F /T by its path under %SystemRoot%, never a bare name the current directory could answer', () => {
    expect(taskkillCommand(4242, { SystemRoot: 'D:\\WINNT' })).toEqual(['D:\\WINNT\\System32\\taskkill.exe', ['/F', '/T', '/PID', '4242']]);
    expect(taskkillCommand(7, {})).toEqual(['C:\\Windows\\System32\\taskkill.exe', ['/F', '/T', '/PID', '7']]);
  });
});
