import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { osc52, renderConsoleApp } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from './console-store.js';
import { sessionSnapshot } from '../../test/support/snapshots.js';

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}


describe('renderConsoleApp', () => {
  /** Just enough of a terminal for Ink: a writable with a size, and a raw-mode-capable input. */
  class FakeTerminalOutput extends EventEmitter {
    readonly columns = 100;
    readonly rows = 30;
    readonly isTTY = true;
    written = '';
    write = (chunk: string): boolean => {
      this.written += chunk;
      return true;
    };
  }
  class FakeTerminalInput extends EventEmitter {
    /** Like process.stdin: `true` on a terminal, absent (undefined) when piped. */
    readonly isTTY: true | undefined;
    constructor(terminal = true) {
      super();
      this.isTTY = terminal ? true : undefined;
    }
    private pending: string | null = null;
    type(data: string): void {
      this.pending = data;
      this.emit('readable');
    }
    read = (): string | null => {
      const data = this.pending;
      this.pending = null;
      return data;
    };
    setEncoding(): void {}
    setRawMode(): void {}
    resume(): void {}
    pause(): void {}
    ref(): void {}
    unref(): void {}
  }

  it('leaves Ctrl+C to the caller, copies with OSC 52 on a terminal and exits on unmount', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1) });
    const actions = { onOpenViewer: vi.fn(), onRetry: vi.fn(), onClose: vi.fn(), onAdd: vi.fn(), onQuit: vi.fn() };
    const stdout = new FakeTerminalOutput();
    const stdin = new FakeTerminalInput();
    const handle = renderConsoleApp(store, actions, {
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
    expect(actions.onQuit).toHaveBeenCalledTimes(1);
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
    const handle = renderConsoleApp(store, { onOpenViewer: vi.fn(), onRetry: vi.fn(), onClose: vi.fn(), onAdd: vi.fn(), onQuit: vi.fn() }, {
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
});
