import { describe, expect, it } from 'vitest';
import { VIEWER_PROBE_TIMEOUT_MS as PROBE_TIMEOUT_MS } from '../limits.js';
import { hostPlatform, runProbe } from './system-environment.js';

describe('runProbe (asking a real program what it is)', () => {
  it('returns stdout and stderr whatever the exit code, with no display to open a window on', async () => {
    const script = 'process.stdout.write(`display=${process.env.DISPLAY ?? "none"} `); process.stderr.write("banner"); process.exit(1)';
    expect(await runProbe(process.execPath, ['-e', script], { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' })).toBe('display=none banner');
  });

  it('gives up on a program that does not exit within the timeout', async () => {
    const started = Date.now();
    expect(await runProbe(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {})).toBe('');
    // It answered at all, and not before the timeout (the program never exits on its own, and a
    // busy machine only makes the wait longer).
    expect(Date.now() - started).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 100);
  });

  it('returns nothing for a program that does not exist', async () => {
    expect(await runProbe('/nonexistent/vncviewer', ['-help'], {})).toBe('');
  });

  it('maps platforms to the three families', () => {
    expect(hostPlatform('freebsd')).toBe('linux');
    expect(hostPlatform('darwin')).toBe('darwin');
    expect(hostPlatform('win32')).toBe('win32');
  });
});
