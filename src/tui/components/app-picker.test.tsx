import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';
import { App } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import type { PickerVm, VmListingSource } from '../state/picker-model.js';
import type { ConsoleHandlers } from '../state/requests.js';

const ENTER = '\r';
const ESC = '\u001B';
const DOWN = '\u001B[B';

const demoVm = (name: string): PickerVm => ({ provider: 'demo', target: `demo:${name}`, state: 'Running', hasConsole: true });

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

/** The App with sessions demo:vm-1 and demo:vm-2 open, and handlers that can list and save. */
async function mountApp({ canList = true, saveWorkspace }: { canList?: boolean; saveWorkspace?: ConsoleHandlers['save-workspace'] } = {}) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  source.emit('added', { snapshot: () => snapshot(1) });
  source.emit('added', { snapshot: () => snapshot(2) });
  const listVms = vi.fn((): VmListingSource[] => {
    const failing = Promise.reject(new Error('no Kubernetes configuration found'));
    // As listingSources does: the picker reports it once drawn.
    failing.catch(() => undefined);
    return [
      { provider: 'demo', vms: Promise.resolve(['vm-1', 'vm-2', 'vm-3', 'web-1', 'web-2'].map(demoVm)) },
      { provider: 'kubevirt', vms: failing },
    ];
  });
  const onSaveWorkspace = vi.fn(saveWorkspace ?? (({ name }) => Promise.resolve(`saved workspace ${name} (2 targets)`)));
  const handlers = { ...fakeHandlers(), 'save-workspace': onSaveWorkspace };
  const app = render(<App store={store} handlers={handlers} listVms={canList ? listVms : undefined} />);
  mounted.push(app);
  await until(() => (app.lastFrame() ?? '').includes('demo:vm-2'), 'the table');
  await settle();
  const frame = () => app.lastFrame() ?? '';
  /** Each key after the previous one is drawn, as a person types. */
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      const before = app.frames.length;
      app.stdin.write(key);
      await until(() => app.frames.length > before, `the frame after ${JSON.stringify(key)}`);
    }
  };
  return { app, handlers, listVms, onSaveWorkspace, frame, press };
}

describe('App: a opens the picker', () => {
  it('lists anew, greys the sessions open already, and adds the marked VMs', async () => {
    const { handlers, listVms, frame, press } = await mountApp();
    await press('a');
    await until(() => frame().includes('Add which consoles?') && frame().includes('demo:web-2'), 'the picker with its rows');
    expect(listVms).toHaveBeenCalledTimes(1);
    expect(frame()).toMatch(/\[=\] demo:vm-1 .*open already/);
    expect(frame()).toMatch(/\[=\] demo:vm-2 .*open already/);
    expect(frame()).toContain('kubevirt: no Kubernetes configuration found');
    // The table's keys are the picker's text now: `x` would close a session, `q` quit.
    await press('w', 'e', 'b', ' ', ' ', ENTER);
    await until(() => frame().includes('adding demo:web-1, demo:web-2'), 'the notice');
    expect(handlers.add.mock.calls).toEqual([[{ action: 'add', text: 'demo:web-1' }], [{ action: 'add', text: 'demo:web-2' }]]);
    expect(frame()).not.toContain('Add which consoles?');
    expect(handlers.close).not.toHaveBeenCalled();
    expect(handlers.quit).not.toHaveBeenCalled();
  });

  it('adds a target typed in full that nothing listed matches', async () => {
    const { handlers, frame, press } = await mountApp();
    await press('a');
    await until(() => frame().includes('demo:web-2'), 'the rows');
    await press(...'other/vm-x', ENTER);
    await until(() => handlers.add.mock.calls.length === 1, 'the add');
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'other/vm-x' });
  });

  it('Esc goes back to the table with nothing added; the table keys work again', async () => {
    const { handlers, app, frame, press } = await mountApp();
    await press('a');
    await until(() => frame().includes('demo:web-2'), 'the rows');
    await press(DOWN, ESC);
    await until(() => !frame().includes('Add which consoles?'), 'the table again');
    await settle();
    app.stdin.write('x');
    expect(handlers.close).toHaveBeenCalledWith({ action: 'close', sessionId: 1 });
    expect(handlers.add).not.toHaveBeenCalled();
  });

  it('text typed in the same read as a goes into the filter; a pasted line with its Enter adds as before', async () => {
    const { handlers, app, frame } = await mountApp();
    app.stdin.write('aweb-2');
    await until(() => frame().includes('filter: web-2') && frame().includes('demo:web-2'), 'the picker filtered');
    expect(frame()).not.toContain('demo:web-1');
    app.stdin.write(ESC);
    await until(() => !frame().includes('Add which consoles?'), 'the table again');
    await settle();
    app.stdin.write('ademo:vm-7\r');
    await until(() => handlers.add.mock.calls.length === 1, 'the add');
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'demo:vm-7' });
  });

  it('Ctrl+C in the picker quits as it does in the table', async () => {
    const { handlers, frame, press } = await mountApp();
    await press('a');
    await until(() => frame().includes('Add which consoles?'), 'the picker');
    await press('\u0003');
    expect(handlers.quit).toHaveBeenCalledTimes(1);
  });

  it('without a way to list, a is the bare prompt', async () => {
    const { handlers, frame, press } = await mountApp({ canList: false });
    await press('a');
    expect(frame()).toContain('add target:');
    await press(...'demo:vm-9', ENTER);
    expect(handlers.add).toHaveBeenCalledWith({ action: 'add', text: 'demo:vm-9' });
  });
});

describe('App: S saves a workspace', () => {
  it('asks for a name and shows what saving said', async () => {
    const { onSaveWorkspace, frame, press } = await mountApp();
    await press('S');
    expect(frame()).toContain('save workspace as:');
    await press(...'prod-web', ENTER);
    await until(() => frame().includes('saved workspace prod-web (2 targets)'), 'the answer');
    expect(onSaveWorkspace).toHaveBeenCalledExactlyOnceWith({ action: 'save-workspace', name: 'prod-web' });
    expect(frame()).not.toContain('save workspace as:');
  });

  it('shows why saving failed, and Esc cancels without saving', async () => {
    const { frame, press, onSaveWorkspace } = await mountApp({
      saveWorkspace: () => Promise.reject(new Error('bad workspace name "a b"')),
    });
    await press('S', ESC);
    expect(frame()).not.toContain('save workspace as:');
    expect(onSaveWorkspace).not.toHaveBeenCalled();
    await press('S', ...'a b', ENTER);
    await until(() => frame().includes('bad workspace name "a b"'), 'the error');
  });
});
