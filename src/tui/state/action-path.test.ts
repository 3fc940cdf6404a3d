import { describe, expect, expectTypeOf, it } from 'vitest';
import { KEY_TABLE, type BrowseAction, type KeyRow, type PickerAction } from './key-table.js';
import { KEY_HELP } from './key-help.js';
import type { KeyRequest } from './keys.js';
import type { ConsoleHandlers, ConsoleRequest, ConsoleRequestName } from './requests.js';

/*
 * One path from a key to its effect, whole by construction: the action names are read from the
 * key table, the reducers' handlers are Records over them, and a command's handlers are a
 * ConsoleHandlers over the requests. The `@ts-expect-error` lines below are checked by
 * `tsc --noEmit` (the lint gate): should one of those checks loosen, its line compiles, and the
 * directive fails the build.
 */

const nothing = (): void => undefined;
const HANDLERS = {
  open: nothing,
  attach: nothing,
  retry: nothing,
  close: nothing,
  screenshot: nothing,
  add: nothing,
  'save-workspace': nothing,
  paste: nothing,
  'send-key': nothing,
  power: nothing,
  'broadcast-end': nothing,
  quit: nothing,
} satisfies ConsoleHandlers;

describe('the action path from a key to its effect', () => {
  it('refuses, at compile time, a command whose handlers miss a request or answer one that is not', () => {
    const { screenshot: _left, ...missingOne } = HANDLERS;
    // @ts-expect-error: no handler for `screenshot`
    const missing: ConsoleHandlers = missingOne;
    // @ts-expect-error: `reboot` is no request of the TUI
    const unknown: ConsoleHandlers = { ...HANDLERS, reboot: nothing };
    expect([missing, unknown]).toHaveLength(2);
    expectTypeOf<keyof typeof HANDLERS>().toEqualTypeOf<ConsoleRequestName>();
  });

  it('refuses, at compile time, a request without what it carries', () => {
    // @ts-expect-error: a screenshot is of one session
    const screenshot: ConsoleRequest = { action: 'screenshot' };
    // @ts-expect-error: the copy is the TUI's own, no request of the command's
    const copy: ConsoleRequest = { action: 'copy', text: '127.0.0.1:5901' };
    const copied: KeyRequest = { action: 'copy', text: '127.0.0.1:5901' };
    expect([screenshot, copy, copied]).toHaveLength(3);
  });

  it('reads the action names from the key table: a name no key binds is no action, so no handler is asked for it', () => {
    expectTypeOf<'screenshot'>().toExtend<BrowseAction>();
    expectTypeOf<'mark'>().toExtend<PickerAction>();
    // @ts-expect-error: no key is bound to `reboot`
    const reboot: BrowseAction = 'reboot';
    // @ts-expect-error: y confirms a power action only, in its confirmation
    const confirm: BrowseAction = 'confirm';
    expect([reboot, confirm]).toHaveLength(2);
    const bound = new Set(KEY_TABLE.flatMap((row) => row.keys).flatMap((binding) => [binding.on.table, binding.on.grid]));
    expect(bound.has('screenshot') && !bound.has('reboot')).toBe(true);
  });

  it('refuses, at compile time, a key row without help', () => {
    // @ts-expect-error: neither what the key does nor the row that says it
    const silent: KeyRow = { keys: [{ key: 'z', on: { table: 'zoom' } }], footer: 'z zoom' };
    expect(silent.keys).toHaveLength(1);
  });

  it('helps with every key: a row says what its keys do, or names a row whose text names them', () => {
    for (const row of KEY_TABLE) {
      if (row.does !== undefined) continue;
      const teller = KEY_HELP.find((entry) => entry.keys.includes(row.toldBy));
      expect(teller, `the row of ${row.toldBy}, which tells of ${row.keys.map((b) => b.key).join(', ')}`).toBeDefined();
      for (const binding of row.keys) expect(teller?.does, `${binding.key} in the help`).toContain(binding.key);
    }
  });
});
