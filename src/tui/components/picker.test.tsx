import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VconsoleError } from '../../errors.js';
import { until } from '../../../test/support/tui.js';
import { Picker } from './picker.js';
import type { PickerOutcome, PickerVm, VmListingSource } from '../state/picker-model.js';

const DOWN = '\u001B[B';
const UP = '\u001B[A';
const ENTER = '\r';
const ESC = '\u001B';
const CTRL_C = '\u0003';
const BACKSPACE = '\u007F';

const vm = (provider: string, target: string, state = 'Running', hasConsole = true): PickerVm => ({ provider, target, state, hasConsole });

const KUBEVIRT = [
  vm('kubevirt', 'default/vm-a'),
  vm('kubevirt', 'prod/web-1'),
  vm('kubevirt', 'prod/web-2'),
  vm('kubevirt', 'prod/db-1', 'Scheduling', false),
];
const DEMO = [vm('demo', 'demo:vm-a'), vm('demo', 'demo:shell#serial')];

/** A source whose listing the test settles when it likes. */
function pending(provider: string) {
  let resolve!: (vms: PickerVm[]) => void;
  let reject!: (err: unknown) => void;
  const vms = new Promise<PickerVm[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { source: { provider, vms } satisfies VmListingSource, resolve, reject };
}

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

function mountPicker(sources: VmListingSource[], props: { isOpen?: (vm: PickerVm) => boolean } = {}) {
  const onDone = vi.fn<(outcome: PickerOutcome) => void>();
  const app = render(<Picker sources={sources} onDone={onDone} {...props} />);
  mounted.push(app);
  const frame = () => app.lastFrame() ?? '';
  const highlighted = () =>
    frame()
      .split('\n')
      .find((l) => l.startsWith('›')) ?? '';
  /** Types keys one by one, each after the previous one was drawn, as a person does. */
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      const before = app.frames.length;
      app.stdin.write(key);
      await until(() => app.frames.length > before || onDone.mock.calls.length > 0, `the frame after ${JSON.stringify(key)}`);
    }
  };
  return { app, onDone, frame, highlighted, press };
}

const listed = (sources: Record<string, PickerVm[]>): VmListingSource[] =>
  Object.entries(sources).map(([provider, vms]) => ({ provider, vms: Promise.resolve(vms) }));

describe('Picker', () => {
  it('keeps the PROVIDER column in place for a VM with a wide (East Asian) name', async () => {
    const { frame } = mountPicker(listed({ kubevirt: [vm('kubevirt', 'default/漢字の名前'), vm('kubevirt', 'default/vm-a')] }));
    await until(() => frame().includes('default/vm-a'), 'the rows');
    const providerColumn = (target: string) => {
      const line =
        frame()
          .split('\n')
          .find((l) => l.includes(target)) ?? '';
      return stringWidth(line.slice(0, line.indexOf('kubevirt')));
    };
    expect(providerColumn('漢字の名前')).toBe(providerColumn('default/vm-a'));
  });

  it('draws "loading..." at once and the rows as each provider answers', async () => {
    const kubevirt = pending('kubevirt');
    const demo = pending('demo');
    const { frame } = mountPicker([kubevirt.source, demo.source]);
    await until(() => frame().includes('loading... (kubevirt, demo)'), 'the loading line');
    demo.resolve(DEMO);
    await until(() => frame().includes('demo:vm-a') && frame().includes('loading... (kubevirt)'), 'the demo rows while kubevirt loads');
    kubevirt.resolve(KUBEVIRT);
    await until(() => frame().includes('prod/web-1') && !frame().includes('loading'), 'every row, nothing loading');
    // Providers in their order, each VM with its provider and state.
    const lines = frame().split('\n');
    expect(lines.findIndex((l) => l.includes('default/vm-a'))).toBeLessThan(lines.findIndex((l) => l.includes('demo:vm-a')));
    expect(lines.find((l) => l.includes('prod/db-1'))).toMatch(/kubevirt\s+Scheduling\s+\(no console now\)/);
  });

  it('shows a provider that failed to list as one line saying why, and lists the others', async () => {
    const openstack = pending('openstack');
    const { frame } = mountPicker([...listed({ demo: DEMO }), openstack.source]);
    openstack.reject(new VconsoleError('no OpenStack cloud configured', { hint: 'set OS_CLOUD or --cloud' }));
    await until(() => frame().includes('openstack: no OpenStack cloud configured; set OS_CLOUD or --cloud'), 'the failure line');
    expect(frame()).toContain('demo:vm-a');
    expect(frame()).not.toContain('loading');
  });

  it('filters fuzzily as the user types, best match first, and Backspace widens again', async () => {
    const { frame, highlighted, press } = mountPicker(listed({ kubevirt: KUBEVIRT, demo: DEMO }));
    await until(() => frame().includes('demo:vm-a'), 'the rows');
    await press('w', 'e', 'b');
    expect(frame()).toContain('filter: web');
    expect(frame()).not.toContain('default/vm-a');
    expect(frame()).not.toContain('demo:vm-a');
    expect(highlighted()).toContain('prod/web-1');
    await press('2');
    expect(highlighted()).toContain('prod/web-2');
    expect(frame()).not.toContain('prod/web-1');
    await press(BACKSPACE, BACKSPACE, BACKSPACE, BACKSPACE, 'v', 'm', 'a');
    const rows = frame()
      .split('\n')
      .filter((l) => /\[[ x=]\]/.test(l));
    expect(rows.map((l) => /(\S+\/vm-a|demo:vm-a)/.exec(l)?.[1]).sort()).toEqual(['default/vm-a', 'demo:vm-a']);
  });

  it('Space marks rows, Enter opens the marked ones', async () => {
    const { frame, onDone, press } = mountPicker(listed({ kubevirt: KUBEVIRT, demo: DEMO }));
    await until(() => frame().includes('demo:vm-a'), 'the rows');
    await press('w', 'e', 'b', ' ', ' ');
    expect(
      frame()
        .split('\n')
        .filter((l) => l.includes('[x]')),
    ).toHaveLength(2);
    expect(frame()).toContain('⏎ open 2 marked');
    // Marks stay while the filter changes: a third from another search.
    await press(BACKSPACE, BACKSPACE, BACKSPACE, 'd', 'e', 'm', 'o', ':', 'v', DOWN, UP, ' ');
    await press(ENTER);
    expect(onDone).toHaveBeenCalledExactlyOnceWith({ type: 'open', targets: ['prod/web-1', 'prod/web-2', 'demo:vm-a'] });
  });

  it('Enter with nothing marked opens the highlighted row; Up and Down move', async () => {
    const { frame, highlighted, onDone, press } = mountPicker(listed({ kubevirt: KUBEVIRT }));
    await until(() => frame().includes('prod/web-1'), 'the rows');
    expect(highlighted()).toContain('default/vm-a');
    await press(DOWN, DOWN, UP);
    expect(highlighted()).toContain('prod/web-1');
    expect(frame()).toContain('⏎ open prod/web-1');
    await press(ENTER);
    expect(onDone).toHaveBeenCalledExactlyOnceWith({ type: 'open', targets: ['prod/web-1'] });
  });

  it('Enter opens the filter as typed when it matches nothing, or reads as a whole target', async () => {
    const nothing = mountPicker(listed({ kubevirt: KUBEVIRT }));
    await until(() => nothing.frame().includes('prod/web-1'), 'the rows');
    await nothing.press(...'other/vm-z');
    expect(nothing.frame()).toContain('no VM matches');
    expect(nothing.frame()).toContain('⏎ open other/vm-z as typed');
    await nothing.press(ENTER);
    expect(nothing.onDone).toHaveBeenCalledExactlyOnceWith({ type: 'open', targets: ['other/vm-z'] });

    // `demo:vm` matches demo:vm-a, but a scheme says it is a target: as typed, unless the user moves onto a row.
    const schemed = mountPicker(listed({ demo: DEMO }));
    await until(() => schemed.frame().includes('demo:vm-a'), 'the rows');
    await schemed.press(...'demo:vm');
    expect(schemed.frame()).toContain('⏎ open demo:vm as typed');
    await schemed.press(DOWN, UP);
    expect(schemed.frame()).toContain('⏎ open demo:vm-a ·');
    await schemed.press(ENTER);
    expect(schemed.onDone).toHaveBeenCalledExactlyOnceWith({ type: 'open', targets: ['demo:vm-a'] });
  });

  it('Esc cancels and Ctrl+C interrupts, opening nothing', async () => {
    const esc = mountPicker(listed({ demo: DEMO }));
    await until(() => esc.frame().includes('demo:vm-a'), 'the rows');
    await esc.press(' ', ESC);
    await until(() => esc.onDone.mock.calls.length > 0, 'the outcome');
    expect(esc.onDone).toHaveBeenCalledExactlyOnceWith({ type: 'cancel' });

    const ctrlC = mountPicker([pending('kubevirt').source]);
    await ctrlC.press(CTRL_C);
    expect(ctrlC.onDone).toHaveBeenCalledExactlyOnceWith({ type: 'interrupt' });
  });

  it('greys sessions open already: shown as open, neither marked nor opened again', async () => {
    const { frame, highlighted, onDone, press } = mountPicker(listed({ demo: DEMO }), { isOpen: (v) => v.target === 'demo:vm-a' });
    await until(() => frame().includes('demo:vm-a'), 'the rows');
    // The highlight starts on the first VM not open yet.
    expect(highlighted()).toContain('demo:shell#serial');
    expect(frame()).toMatch(/\[=\] demo:vm-a .*open already/);
    await press(UP);
    expect(highlighted()).toContain('demo:vm-a');
    await press(' ');
    expect(frame()).toContain('demo:vm-a is open already');
    expect(frame()).not.toContain('[x]');
    await press(ENTER);
    expect(onDone).not.toHaveBeenCalled();
    await press(DOWN, ENTER);
    expect(onDone).toHaveBeenCalledExactlyOnceWith({ type: 'open', targets: ['demo:shell#serial'] });
  });

  it('shows names from a cloud with control characters made visible', async () => {
    const { frame } = mountPicker(listed({ openstack: [vm('openstack', 'openstack:evil\u001b[2Jname', 'ACTIVE\u0007')] }));
    await until(() => frame().includes('evil'), 'the row');
    expect(frame()).toContain('openstack:evil\\e[2Jname');
    expect(frame()).toContain('ACTIVE\\x07');
    expect(frame()).not.toContain('\u001b[2J');
  });
});

describe('Picker: keys typed before it took the keys', () => {
  it("takes up what the caller's draft gains after it was drawn, then reads keys itself (tmux: the first keys after `a` were lost)", async () => {
    const onDone = vi.fn<(outcome: PickerOutcome) => void>();
    const sources = [{ provider: 'kubevirt', vms: Promise.resolve(KUBEVIRT) }];
    const app = render(<Picker sources={sources} onDone={onDone} initialFilter="" />);
    mounted.push(app);
    app.rerender(<Picker sources={sources} onDone={onDone} initialFilter="prod/" />);
    app.rerender(<Picker sources={sources} onDone={onDone} initialFilter="prod/web-2" />);
    await until(() => (app.lastFrame() ?? '').includes('filter: prod/web-2'), 'the draft in the filter');
    app.stdin.write(ENTER);
    await until(() => onDone.mock.calls.length > 0, 'the outcome');
    expect(onDone).toHaveBeenCalledWith(expect.objectContaining({ type: 'open', targets: ['prod/web-2'] }));
  });
});
