import { describe, expect, it } from 'vitest';
import { describeViewerExit, launchViewer, type ViewerExit } from './viewer-process.js';

describe('ViewerProcess', () => {
  it('keeps only the last 4 KB of output, the part that says why a viewer died', async () => {
    const script = 'process.stderr.write("x".repeat(10000) + "\\nlast words: no route to host\\n"); process.stdout.write("y".repeat(5000)); process.exit(3)';
    const exit = await launchViewer({ command: process.execPath, args: ['-e', script] }).exited;
    expect(exit).toMatchObject({ outcome: 'failed', code: 3 });
    expect(Buffer.byteLength(exit.stderrTail)).toBeLessThanOrEqual(4096);
    expect(exit.stderrTail.endsWith('last words: no route to host\n')).toBe(true);
    expect(exit.stdoutTail.length).toBe(4096);
  });

  it('redacts secrets a viewer echoes', async () => {
    const script = 'process.stderr.write("cannot open wss://h/vnc?token=SECRET123\\n"); process.exit(1)';
    const exit = await launchViewer({ command: process.execPath, args: ['-e', script] }).exited;
    expect(exit.stderrTail).not.toContain('SECRET123');
  });

  it('counts a viewer that ran longer than the early-exit window as closed, even with a non-zero code', async () => {
    const exit = await launchViewer({ command: process.execPath, args: ['-e', 'process.exit(1)'] }, { earlyExitMs: 0 }).exited;
    expect(exit.outcome).toBe('closed');
  });
});

describe('describeViewerExit', () => {
  const base: ViewerExit = { outcome: 'closed', code: 0, signal: null, stderrTail: '', stdoutTail: '', ranMs: 60_000 };
  it('says what happened in one line', () => {
    expect(describeViewerExit(base, 'TigerVNC')).toBe('TigerVNC was closed');
    expect(describeViewerExit({ ...base, code: 1 }, 'TigerVNC')).toBe('TigerVNC exited with code 1');
    expect(describeViewerExit({ ...base, outcome: 'failed', code: null, signal: 'SIGSEGV', stderrTail: 'boom\n' }, 'X')).toBe('X was killed by SIGSEGV: boom');
    expect(describeViewerExit({ ...base, outcome: 'failed', code: null, spawnError: 'EACCES' }, 'X')).toBe('X could not be started: permission denied');
    expect(describeViewerExit({ ...base, outcome: 'detached' }, 'Screen Sharing')).toBe('Screen Sharing was opened');
  });
});
