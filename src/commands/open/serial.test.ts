import { afterEach, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { resolveTarget } from '../../targets/index.js';
import { ConsoleStore } from '../../tui/state/console-store.js';
import { rowProblem } from '../../tui/layout/format.js';
import { INITIAL_UI, reduceInput } from '../../tui/state/keys.js';
import { waitFor } from '../../../test/support/wait.js';
import { OPEN_SERVING, servingPlan } from '../serving-plan.js';
import { reportSerialLine } from './serial.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('a serial console open cannot reach yet', () => {
  it('says on its row, from the start, why it is still connecting; Enter says it is not listening yet', async () => {
    const registry = new SessionRegistry();
    const store = new ConsoleStore(registry);
    const logged: string[] = [];
    registry.on('log', (entry) => logged.push(`${entry.level}: ${entry.message}`));
    const plan = await servingPlan(
      { join: false },
      { profile: OPEN_SERVING, listen: '127.0.0.1', configShare: undefined, targets: [] },
      () => undefined,
    );
    const session = registry.add(plan.wrap(resolveTarget('tcp://127.0.0.1:1#serial', {})));
    plan.sharing.follow(session);
    reportSerialLine(session, () => ({ show: (event) => store.apply(event) }));
    const started = session.start({ host: '127.0.0.1', port: 0 }).catch(() => undefined);
    cleanup.push(async () => {
      await registry.closeAll();
      await started;
      store.dispose();
    });

    const row = () => store.getState().rows[0];
    await waitFor(() => /connection refused.*trying again for up to \d+ s/.test(rowProblem(row()) ?? ''), 'the reason on the row');
    expect(row().session.state).toBe('connecting');
    expect(logged.some((line) => /^warn: cannot connect: connection refused/.test(line))).toBe(true);
    const pressed = reduceInput({ ...INITIAL_UI, selectedId: session.id }, { rows: [row()], canCopy: false }, '', {
      return: true,
    } as never);
    expect(pressed.ui.notice).toBe('tcp://127.0.0.1:1#serial is not listening yet');
    expect(pressed.requests).toEqual([]);
  });

  it('drops the reason once the line is open', async () => {
    const registry = new SessionRegistry();
    const store = new ConsoleStore(registry);
    cleanup.push(() => store.dispose());
    const plan = await servingPlan(
      { join: false },
      { profile: OPEN_SERVING, listen: '127.0.0.1', configShare: undefined, targets: [] },
      () => undefined,
    );
    const session = registry.add(plan.wrap(resolveTarget('demo:shell#serial', {})));
    store.apply({
      type: 'serial',
      sessionId: session.id,
      status: { unseenBytes: 0, waiting: 'cannot connect; trying again for up to 300 s' },
    });
    expect(store.getState().rows[0].serial?.waiting).toMatch(/trying again/);
    store.apply({ type: 'serial', sessionId: session.id, status: { unseenBytes: 0 } });
    expect(store.getState().rows[0].serial?.waiting).toBeUndefined();
  });
});
