import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { osc52, renderConsoleApp } from './render-console-app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, until } from '../../../test/support/tui.js';
import { FakeTerminalInput, FakeTerminalOutput } from '../../../test/support/fake-terminal.js';

describe('renderConsoleApp', () => {
  it('leaves Ctrl+C to the caller, copies with OSC 52 on a terminal and exits on unmount', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1) });
    const handlers = fakeHandlers();
    const stdout = new FakeTerminalOutput();
    const stdin = new FakeTerminalInput();
    const handle = renderConsoleApp(store, handlers, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      patchConsole: false, // vitest owns the console
    });
    let exited = false;
    const exit = handle.waitUntilExit().then(() => {
      exited = true;
    });
    await until(() => stdin.listenerCount('readable') > 0, 'the app to read keys');
    stdin.type('\u0003');
    expect(handlers.quit).toHaveBeenCalledTimes(1);
    stdin.type('c');
    expect(stdout.written).toContain(osc52('127.0.0.1:5901'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(exited).toBe(false);
    handle.unmount();
    await exit;
    expect(stdout.written).toContain('demo:vm-1');
  });

  it('renders without keys when stdin is not a terminal', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(2) });
    const stdout = new FakeTerminalOutput();
    const handle = renderConsoleApp(store, fakeHandlers(), {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: new FakeTerminalInput(false) as unknown as NodeJS.ReadStream,
      patchConsole: false,
    });
    const exit = handle.waitUntilExit();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    handle.unmount();
    await exit;
    expect(stdout.written).toContain('demo:vm-2');
    expect(stdout.written).not.toContain('Raw mode');
  });

  it('runs on the alternate screen and gives the screen back on unmount, and to an attached console with a cursor', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1) });
    const stdout = new FakeTerminalOutput();
    const stdin = new FakeTerminalInput();
    const handle = renderConsoleApp(store, fakeHandlers(), {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      patchConsole: false,
    });
    const exit = handle.waitUntilExit();
    await until(() => stdout.written.includes('demo:vm-1'), 'the first frame');
    expect(stdout.written.indexOf('\u001B[?1049h')).toBeLessThan(stdout.written.indexOf('demo:vm-1'));
    await handle.suspend();
    // The serial console draws like a plain terminal: cursor shown, lines wrap, still off the user's screen.
    expect(stdout.written).toMatch(/\u001B\[\?7h\u001B\[\?25h\u001B\[2J\u001B\[H$/);
    expect(stdout.written).not.toContain('\u001B[?1049l');
    handle.resume();
    await until(() => stdout.written.lastIndexOf('demo:vm-1') > stdout.written.lastIndexOf('\u001B[?1049h'), 'the TUI drawn again');
    handle.unmount();
    await exit;
    expect(stdout.written.endsWith('\u001B[?1049l')).toBe(true);
    expect(stdout.written.match(/\u001B\[\?1049l/g)).toHaveLength(1);
    // Once left, Ink's last words do not land on the user's screen.
    expect(stdout.written.lastIndexOf('demo:vm-1')).toBeLessThan(stdout.written.lastIndexOf('\u001B[?1049l'));
  });

  describe('suspend and resume', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    async function mounted() {
      const source = new EventEmitter<SessionSourceEvents>();
      const store = new ConsoleStore(source);
      source.emit('added', { snapshot: () => sessionSnapshot(1) });
      source.emit('added', { snapshot: () => sessionSnapshot(2, { consoleType: 'serial' }) });
      source.emit('added', { snapshot: () => sessionSnapshot(3) });
      const handlers = fakeHandlers();
      const stdout = new FakeTerminalOutput();
      const stdin = new FakeTerminalInput();
      const handle = renderConsoleApp(store, handlers, {
        stdout: stdout as unknown as NodeJS.WriteStream,
        stdin: stdin as unknown as NodeJS.ReadStream,
        patchConsole: false,
      });
      let exited = false;
      const exit = handle.waitUntilExit().then(() => {
        exited = true;
      });
      await until(() => stdin.listenerCount('readable') > 0 && stdin.rawMode, 'the app to read keys');
      return { source, store, handlers, stdout, stdin, handle, exit, isExited: () => exited };
    }

    it('gives the terminal away, draws nothing meanwhile, and comes back as it was', async () => {
      const { store, handlers, stdout, stdin, handle, exit, isExited } = await mounted();
      stdin.type('\u001B[B'); // select the serial console
      stdin.type('\r');
      expect(handlers.attach).toHaveBeenCalledWith({ action: 'attach', sessionId: 2 });
      await until(() => stdout.written.includes('Enter attaches'), 'the serial detail line');

      await handle.suspend();
      expect(stdin.listenerCount('readable')).toBe(0);
      expect(stdin.rawMode).toBe(false);
      expect(stdout.written.endsWith('\u001B[2J\u001B[H')).toBe(true);
      const writtenAtSuspend = stdout.written.length;

      // Store changes while the console is attached: no frame, however long we wait.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      store.apply({ type: 'log', level: 'info', message: 'while attached' });
      store.apply({ type: 'serial', sessionId: 2, status: { unseenBytes: 2048 } });
      vi.advanceTimersByTime(5_000);
      await new Promise((resolve) => setImmediate(resolve));
      vi.useRealTimers();
      expect(stdout.written.length).toBe(writtenAtSuspend);
      stdin.type('q');
      expect(handlers.quit).not.toHaveBeenCalled();
      expect(isExited()).toBe(false);

      handle.resume();
      await until(() => stdout.written.slice(writtenAtSuspend).includes('● 2.0 KB new'), 'the TUI drawn again');
      await until(() => stdin.listenerCount('readable') > 0 && stdin.rawMode, 'keys read again');
      const frame = stdout.written.slice(writtenAtSuspend);
      expect(frame).toMatch(/› demo:vm-2 /);
      expect(frame).toContain('while attached');
      stdin.type('o');
      expect(handlers.attach).toHaveBeenLastCalledWith({ action: 'attach', sessionId: 2 });
      expect(handlers.attach).toHaveBeenCalledTimes(2);

      handle.unmount();
      await exit;
      expect(isExited()).toBe(true);
    });

    it('keeps the notice line across a suspend', async () => {
      const { stdout, stdin, handle, exit } = await mounted();
      stdin.type('\u001B[B');
      stdin.type('\u001B[B');
      stdin.type('x');
      await until(() => stdout.written.includes('closing demo:vm-3'), 'the notice');
      await handle.suspend();
      const writtenAtSuspend = stdout.written.length;
      handle.resume();
      await until(() => stdout.written.slice(writtenAtSuspend).includes('closing demo:vm-3'), 'the notice drawn again');
      expect(stdout.written.slice(writtenAtSuspend)).toMatch(/› demo:vm-3 /);
      handle.unmount();
      await exit;
    });

    it('never clears the screen under a TUI resumed before its suspend finished', async () => {
      const { stdout, handle, exit } = await mounted();
      const suspended = handle.suspend();
      const at = stdout.written.length;
      handle.resume();
      await until(() => stdout.written.slice(at).includes('demo:vm-3'), 'the resumed frame');
      await suspended;
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(stdout.written.lastIndexOf('demo:vm-3')).toBeGreaterThan(stdout.written.lastIndexOf('\u001B[2J'));
      handle.unmount();
      await exit;
    });

    it('ends for good when unmounted while suspended', async () => {
      const { handle, exit, stdin } = await mounted();
      await handle.suspend();
      handle.unmount();
      await exit;
      handle.resume(); // too late: nothing is drawn again
      await new Promise((resolve) => setImmediate(resolve));
      expect(stdin.listenerCount('readable')).toBe(0);
    });
  });
});
