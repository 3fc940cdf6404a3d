import { describe, expect, it } from 'vitest';
import { describeViewerExit, launchViewer, type ViewerExit } from './viewer-process.js';

describe('ViewerProcess', () => {
  it('keeps only the last 4 KB of output, the part that says why a viewer died', async () => {
    const script =
      'process.stderr.write("x".repeat(10000) + "\\nlast words: no route to host\\n"); process.stdout.write("y".repeat(5000)); process.exit(3)';
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

  it("gives a viewer none of vconsole's credential variables (an openrc's OS_PASSWORD), the rest of the environment kept", async () => {
    const env = { ...process.env, OS_PASSWORD: 'hunter22-pw', OS_APPLICATION_CREDENTIAL_SECRET: 'app-cred-s3cret', OS_CLOUD: 'prod' };
    const script =
      'process.stdout.write(JSON.stringify([process.env.OS_PASSWORD, process.env.OS_APPLICATION_CREDENTIAL_SECRET, process.env.OS_CLOUD]))';
    const exit = await launchViewer({ command: process.execPath, args: ['-e', script] }, { env }).exited;
    expect(JSON.parse(exit.stdoutTail)).toEqual([null, null, 'prod']);
  });

  // Here (not Windows) %SystemRoot%\\System32\\taskkill.exe cannot be run, as where wine's
  // taskkill refuses /T or a Windows lacks it: the viewer must end all the same.
  it('ends a Windows viewer itself when taskkill fails, on stop() and on killNow()', async () => {
    const forever = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    const stopped = launchViewer(forever, { platform: 'win32' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await Promise.race([stopped.stop(), new Promise((resolve) => setTimeout(() => resolve('still running'), 5000))])).toMatchObject({
      outcome: 'stopped',
    });
    const killed = launchViewer(forever, { platform: 'win32' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    killed.killNow();
    expect(await Promise.race([killed.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 5000))])).toMatchObject({
      outcome: 'stopped',
    });
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
    expect(describeViewerExit({ ...base, outcome: 'failed', code: null, signal: 'SIGSEGV', stderrTail: 'boom\n' }, 'X')).toBe(
      'X was killed by SIGSEGV: boom',
    );
    expect(describeViewerExit({ ...base, outcome: 'failed', code: null, spawnError: 'EACCES' }, 'X')).toBe(
      'X could not be started: permission denied',
    );
    expect(describeViewerExit({ ...base, outcome: 'detached' }, 'Screen Sharing')).toBe('Screen Sharing was opened');
  });

  it('gives the reason a viewer with no display prints, as the real ones word it', () => {
    const failed: ViewerExit = { ...base, outcome: 'failed', code: 1, ranMs: 40 };
    // remote-viewer 11 and TigerVNC 1.12 run with DISPLAY unset.
    const gtk = '\n(remote-viewer:28418): Gtk-WARNING **: 20:24:22.777: cannot open display: \n';
    expect(describeViewerExit({ ...failed, stderrTail: gtk }, 'remote-viewer')).toBe(
      'remote-viewer exited at once with code 1: cannot open display',
    );
    const fltk =
      "\nTigerVNC Viewer 64-bit v1.12.0\nBuilt on: 2023-01-06 16:01\nSee https://www.tigervnc.org for information on TigerVNC.\nCan't open display: \n";
    expect(describeViewerExit({ ...failed, stderrTail: fltk }, 'TigerVNC')).toBe("TigerVNC exited at once with code 1: Can't open display");
  });

  it("shows control characters in a viewer's output instead of sending them to the terminal", () => {
    const exit: ViewerExit = { ...base, outcome: 'failed', code: 1, stderrTail: 'bad \u001b[2J thing\n' };
    expect(describeViewerExit(exit, 'X')).toBe('X exited at once with code 1: bad \\e[2J thing');
  });
});
