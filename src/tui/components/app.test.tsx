import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { App } from './app.js';
import { osc52 } from './render-console-app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { SessionTable } from './session-table.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';
import { workMeter } from '../../../test/support/cpu-time.js';

const DOWN = '\u001B[B';
const UP = '\u001B[A';
const ENTER = '\r';
const CTRL_C = '\u0003';
const BACKSPACE = '\u007F';
const ESC = '\u001B';
const PAGE_DOWN = '\u001B[6~';
const HOME = '\u001B[H';

/** Mounts and waits until the first frame is drawn and the store subscription is live. */
async function mountApp(element: ReactElement) {
  const app = mount(element);
  await until(() => app.frames.length > 0, 'the first frame');
  await settle();
  return app;
}

const frameHas = (app: { lastFrame(): string | undefined }, text: string | RegExp) => () => {
  const frame = app.lastFrame() ?? '';
  return typeof text === 'string' ? frame.includes(text) : text.test(frame);
};

const selectedLine = (app: { lastFrame(): string | undefined }) => (app.lastFrame() ?? '').split('\n').find((l) => l.startsWith('›')) ?? '';

/** A store fed by hand-made events: session 1 listening, 2 failed, 3 listening. */
function eventStore() {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  source.emit('added', { snapshot: () => snapshot(1) });
  source.emit('added', {
    snapshot: () => snapshot(2, { state: 'error', address: undefined, port: undefined, lastError: 'VM vm-2 is not running' }),
  });
  source.emit('added', { snapshot: () => snapshot(3) });
  return { source, store };
}

/** The App on `eventStore()`, with handlers that record their calls. */
async function mountEventApp() {
  const { source, store } = eventStore();
  const handlers = fakeHandlers();
  const app = await mountApp(<App store={store} handlers={handlers} />);
  return { source, store, handlers, app };
}

const mounted: { unmount(): void }[] = [];
function mount(element: ReactElement): ReturnType<typeof render> {
  const app = render(element);
  mounted.push(app);
  return app;
}

afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
  vi.useRealTimers();
});

describe('App rendering', () => {
  it('shows every session of a real registry with its state and local address', async () => {
    const registry = new SessionRegistry();
    const store = new ConsoleStore(registry);
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    const session = registry.add({ name: 'demo:vm-a', provider: 'demo', facts: {}, dial: () => Promise.reject(new Error('no')) });
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    await until(frameHas(app, `point any VNC viewer at 127.0.0.1:${port}`), 'the address');
    const line = app
      .lastFrame()!
      .split('\n')
      .find((l) => l.includes('demo:vm-a') && l.includes(`127.0.0.1:${port}`));
    expect(line).toContain('listening');
    await registry.closeAll();
    store.dispose();
  });

  it('updates bytes and the current rate on a traffic report', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { source, store } = eventStore();
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    vi.advanceTimersByTime(250);
    source.emit('traffic', snapshot(1, { bytesIn: 1.2 * 1024 * 1024, bytesOut: 2048, clients: 1 }));
    vi.advanceTimersByTime(100);
    await until(frameHas(app, '1 client '), 'the traffic frame');
    const line = app
      .lastFrame()!
      .split('\n')
      .find((l) => l.includes('demo:vm-1'));
    expect(line).toMatch(/1\.2 MB 4\.8 MB\/s/);
    expect(line).toMatch(/2\.0 KB 8\.0 KB\/s/);
    expect(app.lastFrame()).toMatch(/1 client .*in 4\.8 MB\/s/);
  });

  it('shows a failed session error in its row and in full in the detail', async () => {
    const { store } = eventStore();
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    const row = app
      .lastFrame()!
      .split('\n')
      .find((l) => l.includes('demo:vm-2'));
    expect(row).toMatch(/error .*VM vm-2 is not running/);
    app.stdin.write(DOWN);
    await until(frameHas(app, 'last error: VM vm-2 is not running'), 'the detail of the failed row');
  });

  it('says which viewers were looked for, how to install one, and that any viewer will do', async () => {
    const { store } = eventStore();
    store.apply({ type: 'no-viewer', notice: { lookedFor: ['TigerVNC', 'remote-viewer'], install: 'sudo apt install tigervnc-viewer' } });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    const frame = app.lastFrame()!;
    expect(frame).toContain('No VNC viewer found (looked for TigerVNC, remote-viewer)');
    expect(frame).toContain('sudo apt install tigervnc-viewer');
    expect(frame).toContain('Screens open in the browser meanwhile; any VNC viewer can connect');
  });

  it('shows how much disk the recordings take: in total in the header, per console in the detail', async () => {
    const { store } = eventStore();
    store.apply({ type: 'recording', sessionId: 1, bytes: 3 * 1024 * 1024 });
    store.apply({ type: 'recording', sessionId: 3, bytes: 1024 * 1024 });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    expect(app.lastFrame()!.split('\n')[0]).toContain('· rec 4.0 MB');
    await until(frameHas(app, 'demo:vm-1 (demo) · recording 3.0 MB · '), "the selected console's recording size");
    store.apply({ type: 'recording', sessionId: 1, bytes: 5 * 1024 * 1024 });
    await until(frameHas(app, '· rec 6.0 MB'), 'the total growing');
  });

  it('windows a long table around the selection when the terminal is short', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({
      session: snapshot(i + 1),
      viewer: { state: 'none' as const },
      rateIn: 0,
      rateOut: 0,
    }));
    const app = mount(<SessionTable rows={rows} selectedIndex={30} width={100} height={10} now={Date.now()} />);
    await until(() => app.frames.length > 0, 'the table');
    const lines = app.lastFrame()!.split('\n');
    expect(lines).toHaveLength(11);
    expect(selectedLine(app)).toContain('demo:vm-31');
    expect(lines.at(-1)).toContain('of 50');
  });
});

describe('App keys', () => {
  it("Enter on a row with no display shows the command's answer (the ssh -L line), not 'opening a viewer'", async () => {
    const { store, handlers, app } = await mountEventApp();
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'no-display', name: 'TigerVNC' } });
    const line = 'ssh -L 5901:127.0.0.1:5901 jump  # demo:vm-1: run on your own machine, then point a VNC viewer at 127.0.0.1:5901';
    handlers.open.mockImplementation(() => store.apply({ type: 'notice', text: line }));
    await until(frameHas(app, 'no display'), 'the row saying no display');
    app.stdin.write(ENTER);
    expect(handlers.open).toHaveBeenLastCalledWith({ action: 'open', sessionId: 1 });
    await until(frameHas(app, 'ssh -L 5901:127.0.0.1:5901 jump'), 'the ssh -L line as the notice');
    expect(app.lastFrame()).not.toContain('opening a viewer');
  });

  it('selects with arrows and j/k and runs the action on the selected session', async () => {
    const { handlers, app } = await mountEventApp();
    app.stdin.write(ENTER);
    expect(handlers.open).toHaveBeenLastCalledWith({ action: 'open', sessionId: 1 });
    app.stdin.write(DOWN);
    app.stdin.write(DOWN);
    app.stdin.write('o');
    expect(handlers.open).toHaveBeenLastCalledWith({ action: 'open', sessionId: 3 });
    app.stdin.write('k');
    app.stdin.write('r');
    expect(handlers.retry).toHaveBeenCalledWith({ action: 'retry', sessionId: 2 });
    // A failed session has no listener to point a viewer at.
    app.stdin.write('o');
    expect(handlers.open).toHaveBeenCalledTimes(2);
    app.stdin.write(UP);
    app.stdin.write('r');
    expect(handlers.retry).toHaveBeenCalledTimes(1);
    app.stdin.write('j');
    app.stdin.write('j');
    app.stdin.write('x');
    expect(handlers.close).toHaveBeenCalledWith({ action: 'close', sessionId: 3 });
    await until(() => selectedLine(app).includes('demo:vm-3'), 'the selection on vm-3');
    expect(app.lastFrame()).toContain('closing demo:vm-3');
  });

  it('quits on q and on Ctrl+C through the callback, without exiting by itself', async () => {
    const { store, handlers, app } = await mountEventApp();
    app.stdin.write('q');
    app.stdin.write(CTRL_C);
    expect(handlers.quit).toHaveBeenCalledTimes(2);
    store.apply({ type: 'log', level: 'info', message: 'still here' });
    await until(frameHas(app, 'still here'), 'a frame after quit');
  });

  it('shows the selected address on c and asks the terminal to copy it, never claiming it did', async () => {
    const { store } = eventStore();
    const copy = vi.fn();
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} copyToClipboard={copy} />);
    app.stdin.write('c');
    expect(copy).toHaveBeenCalledWith('127.0.0.1:5901');
    // tmux without set-clipboard and many terminals drop OSC 52 without a word.
    await until(frameHas(app, 'demo:vm-1: point any VNC viewer at 127.0.0.1:5901 (asked the terminal to copy it)'), 'the notice');
    expect(app.lastFrame()).not.toContain('clipboard');
    expect(osc52('127.0.0.1:5901')).toBe(`\u001B]52;c;${Buffer.from('127.0.0.1:5901').toString('base64')}\u0007`);
  });

  it('tells a SPICE row to a SPICE viewer, on its detail line and on c', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => snapshot(1, { consoleType: 'spice' }) });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    await until(frameHas(app, 'point any SPICE viewer at 127.0.0.1:5901'), 'the detail line');
    app.stdin.write('c');
    await until(frameHas(app, 'demo:vm-1: point any SPICE viewer at 127.0.0.1:5901'), 'the notice');
    expect(app.lastFrame()).not.toContain('VNC viewer');
  });

  it('shows the address on c where the terminal cannot be asked to copy', async () => {
    const { store } = eventStore();
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    app.stdin.write('jjc');
    await until(frameHas(app, 'demo:vm-3: point any VNC viewer at 127.0.0.1:5903'), 'the notice');
    expect(app.lastFrame()).not.toMatch(/copy|clipboard/);
  });

  it('takes a screenshot of the selected VNC row on s and says where it went, or why not', async () => {
    const { source, store } = eventStore();
    source.emit('added', { snapshot: () => snapshot(4, { consoleType: 'serial' }) });
    const handlers = fakeHandlers();
    const app = await mountApp(<App store={store} handlers={handlers} />);
    app.stdin.write('s');
    expect(handlers.screenshot).toHaveBeenCalledWith({ action: 'screenshot', sessionId: 1 });
    await until(frameHas(app, 'saved screenshot of session 1'), 'where the picture went');
    handlers.screenshot.mockImplementationOnce(() => Promise.reject(new Error('no screenshot of demo:vm-1: connection refused')));
    app.stdin.write('s');
    await until(frameHas(app, 'no screenshot of demo:vm-1: connection refused'), 'the error');
    // A failed session has no port to take it through; a serial console has no screen.
    app.stdin.write('js');
    await until(frameHas(app, 'demo:vm-2 failed; press r to retry'), 'the failed row refused');
    app.stdin.write('Gs');
    await until(frameHas(app, 'demo:vm-4 is a serial console: screenshots are for screens'), 'the serial row refused');
    expect(handlers.screenshot).toHaveBeenCalledTimes(2);
  });

  it('adds a target typed at the a prompt, with backspace editing and Esc cancelling', async () => {
    const { handlers, app } = await mountEventApp();
    app.stdin.write('a');
    for (const ch of 'demo:vm-cx') app.stdin.write(ch);
    app.stdin.write(BACKSPACE);
    await until(frameHas(app, /add target: demo:vm-c\s/), 'the typed target');
    // Keys that mean something while browsing are text while typing.
    expect(handlers.quit).not.toHaveBeenCalled();
    expect(handlers.close).not.toHaveBeenCalled();
    app.stdin.write(ENTER);
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'demo:vm-c' });

    app.stdin.write('a');
    app.stdin.write('q');
    app.stdin.write(ESC);
    await until(() => !app.lastFrame()!.includes('add target:'), 'the prompt to close');
    app.stdin.write(ENTER);
    expect(handlers.add).toHaveBeenCalledTimes(1);
    expect(handlers.open).toHaveBeenCalledWith({ action: 'open', sessionId: 1 });
  });
});

describe('App keys arriving together in one read', () => {
  it('handles every key of a chunk in order: letters, arrows, PgDn and Home among them', async () => {
    const { handlers, app } = await mountEventApp();
    app.stdin.write('jj');
    await until(() => selectedLine(app).includes('demo:vm-3'), 'jj to move two rows');
    app.stdin.write(`k${UP}`);
    await until(() => selectedLine(app).includes('demo:vm-1'), 'k and Up to move back two rows');
    app.stdin.write(`${PAGE_DOWN}k${DOWN}x`);
    expect(handlers.close).toHaveBeenCalledWith({ action: 'close', sessionId: 3 });
    app.stdin.write(`${HOME}jrr`);
    expect(handlers.retry).toHaveBeenCalledTimes(2);
    expect(handlers.retry).toHaveBeenLastCalledWith({ action: 'retry', sessionId: 2 });
    app.stdin.write('Gko');
    expect(handlers.open).not.toHaveBeenCalled();
    await until(() => selectedLine(app).includes('demo:vm-2'), 'G then k');
  });

  it('types the rest of a chunk into the add prompt and goes on after its Enter', async () => {
    const { handlers, app } = await mountEventApp();
    app.stdin.write('ademo:vm-cx\u007f\rj');
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'demo:vm-c' });
    await until(() => selectedLine(app).includes('demo:vm-2'), 'the j after the Enter');
    expect(handlers.close).not.toHaveBeenCalled();
  });
});

describe('App add prompt, pasted', () => {
  it('adds a target pasted together with its Enter in one chunk', async () => {
    const { handlers, app } = await mountEventApp();
    app.stdin.write('a');
    await until(frameHas(app, 'add target:'), 'the prompt');
    app.stdin.write('demo:vm-b\r');
    await until(() => (handlers.add as unknown as { mock: { calls: unknown[] } }).mock.calls.length === 1, 'the add');
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'demo:vm-b' });
    await until(() => !app.lastFrame()!.includes('add target:'), 'the prompt to close');
  });
});

describe('App text from outside', () => {
  it('renders a session name with escape sequences and a bell as visible text, not as control bytes', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    const handlers = { ...fakeHandlers(), open: vi.fn(() => Promise.reject(new Error('viewer for vm\u001b]0;pwned\u0007 failed'))) };
    source.emit('added', { snapshot: () => snapshot(1, { name: 'vm\u001b[31mRED\u0007' }) });
    source.emit('log', { time: 0, sessionId: 1, name: 'vm\u001b[31mRED\u0007', level: 'warn', message: 'slow\u001b[2J' });
    const app = await mountApp(<App store={store} handlers={handlers} />);
    await until(frameHas(app, 'vm\\e[31mRED\\x07'), 'the name, made visible');
    app.stdin.write('o');
    await until(frameHas(app, 'viewer for vm\\e]0;pwned\\x07 failed'), 'the error notice, made visible');
    const frame = app.lastFrame()!;
    expect(frame).toContain('slow\\e[2J');
    expect(frame).not.toContain('\u0007');
    expect(frame).not.toContain('\u001b[31mRED');
    expect(frame).not.toContain('\u001b]0;');
    expect(frame).not.toContain('\u001b[2J');
  });
});

describe('App notices of a failed action', () => {
  it("are vconsole's sentence: what to do included, a system error in words", async () => {
    const { VconsoleError } = await import('../../errors.js');
    const { store } = eventStore();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5901'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 5901,
    });
    const handlers = {
      ...fakeHandlers(),
      screenshot: vi.fn(() =>
        Promise.reject(
          new VconsoleError("a screenshot would take demo:vm-1's only VNC session from its viewer", { hint: 'start open with --share' }),
        ),
      ),
      open: vi.fn(() => Promise.reject(refused)),
    };
    const app = await mountApp(<App store={store} handlers={handlers} />);
    app.stdin.write('s');
    await until(frameHas(app, 'only VNC session from its viewer; start open with --share'), 'the notice with what to do');
    app.stdin.write('o');
    await until(frameHas(app, 'connection refused by 127.0.0.1:5901'), 'the system error in words');
    expect(app.lastFrame()).not.toContain('ECONNREFUSED');
  });
});

describe('App with a shared console', () => {
  it('shows reconnecting in the row and why in the detail while the console is away, then live again', async () => {
    const { store, app } = await mountEventApp();
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'open', name: 'TigerVNC' } });
    store.apply({ type: 'upstream', sessionId: 1, status: { reconnecting: true } });
    await until(frameHas(app, 'the console dropped; vconsole is reconnecting, viewers stay open'), 'the detail line');
    expect(selectedLine(app)).toMatch(/demo:vm-1 .* reconnecting /);
    store.apply({ type: 'upstream', sessionId: 1, status: { reconnecting: false } });
    await until(() => selectedLine(app).includes('viewer open'), 'the row live again');
    expect(app.lastFrame()).not.toContain('reconnecting');
  });
});

describe('App with a failed viewer', () => {
  it('shows the console listening and the viewer failed with its reason, and counts no failure', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => snapshot(1) });
    source.emit('added', { snapshot: () => snapshot(2) });
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'failed', name: 'TigerVNC', message: 'cannot open display' } });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    const frame = app.lastFrame()!;
    const row = frame.split('\n').find((l) => l.includes('demo:vm-1'));
    // The row is cut at 100 columns here; the detail below has the reason in full.
    expect(row).toMatch(/127\.0\.0\.1:5901\s+-\s+listening\s+failed\s.*TigerVNC failed/);
    expect(row).not.toMatch(/\berror\b/);
    expect(frame.split('\n')[0]).toContain('2 listening');
    expect(frame.split('\n')[0]).not.toContain('failed');
    expect(frame).toContain('TigerVNC failed (r starts it again)');
    expect(frame).toContain('last error: TigerVNC failed: cannot open display');
  });
});

describe('App redraws', () => {
  it('coalesces a burst of changes into one frame and draws nothing while idle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => snapshot(1, { state: 'connecting', startedAt: undefined }) });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    const before = app.frames.length;

    for (let i = 0; i < 100; i++) store.apply({ type: 'log', level: 'info', message: `event ${i}` });
    await settle();
    expect(app.frames.length).toBe(before);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    await until(frameHas(app, 'event 99'), 'the coalesced frame');
    await settle();
    expect(app.frames.length).toBe(before + 1);

    // Nothing changes: no timer, no frame.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    await settle();
    expect(app.frames.length).toBe(before + 1);
  });

  it('ticks once a second for uptimes only while a session listens', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => snapshot(1) });
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} />);
    expect(app.lastFrame()).toContain('up 0s');
    for (let second = 1; second <= 3; second++) {
      vi.advanceTimersByTime(1000);
      await until(frameHas(app, `up ${second}s`), `uptime ${second}s`);
    }
    source.emit('change', snapshot(1, { state: 'closed' }));
    vi.advanceTimersByTime(100);
    await until(() => !(app.lastFrame() ?? '').includes(' up '), 'the closed session');
    await settle();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('renders 200 rows quickly and redraws one changed row', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    for (let i = 1; i <= 200; i++) source.emit('added', { snapshot: () => snapshot(i, { bytesIn: i * 1000 }) });
    const work = workMeter();
    const app = await mountApp(<App store={store} handlers={fakeHandlers()} frameMs={0} />);
    const firstFrame = work.stop();
    expect(
      app
        .lastFrame()!
        .split('\n')
        .filter((l) => l.includes('demo:vm-')).length,
    ).toBeGreaterThanOrEqual(200);
    source.emit('traffic', snapshot(150, { bytesIn: 9 * 1024 * 1024 }));
    await until(frameHas(app, '9.0 MB'), 'the updated row');
    // Work (CPU time, which a busy machine does not stretch as it does the wall clock); a typical
    // first frame takes tens of ms.
    expect(firstFrame, 'CPU ms of the first frame').toBeLessThan(3000);
  });
});
