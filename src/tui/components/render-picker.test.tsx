import { describe, expect, it } from 'vitest';
import { ENTER_ALTERNATE_SCREEN, LEAVE_ALTERNATE_SCREEN } from '../../terminal/alternate-screen.js';
import type { PickerVm, VmListingSource } from '../state/picker-model.js';
import { showPicker } from './render-picker.js';
import { FakeTerminalInput, FakeTerminalOutput } from '../../../test/support/fake-terminal.js';
import { until } from '../../../test/support/tui.js';

const vm = (target: string): PickerVm => ({ target, provider: target.split(':')[0], state: 'Running', hasConsole: true });

describe('showPicker', () => {
  it('draws on the alternate screen only, and a listing that arrives as Esc is handled draws nothing after it is left', async () => {
    const stdout = new FakeTerminalOutput(100, 30);
    const stdin = new FakeTerminalInput();
    let arrive!: (vms: PickerVm[]) => void;
    const late: VmListingSource = { provider: 'kubevirt', vms: new Promise((resolve) => (arrive = resolve)) };
    const sources: VmListingSource[] = [{ provider: 'demo', vms: Promise.resolve([vm('demo:vm-a')]) }, late];
    const outcome = showPicker(sources, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    });
    await until(() => stdout.written.includes('demo:vm-a'), 'the picker drawn');
    stdin.type('\u001B');
    arrive([vm('kubevirt:default/late-vm')]);
    await expect(outcome).resolves.toEqual({ type: 'cancel' });

    const text = stdout.written;
    expect(text.startsWith(ENTER_ALTERNATE_SCREEN)).toBe(true);
    expect(text.endsWith(LEAVE_ALTERNATE_SCREEN)).toBe(true);
    expect(text.match(/\u001B\[\?1049l/g)).toHaveLength(1);
    expect(stdin.rawMode).toBe(false);
    const written = stdout.writes.length;
    await new Promise((resolve) => setImmediate(resolve));
    expect(stdout.writes.length).toBe(written);
  });
});
