import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readLine, sourceFor, startGreeter } from '../../../test/support/fake-console.js';
import { ConsoleSession } from '../../proxy/console-session.js';
import { firstClientSettled, settledOrAfter } from './first-viewers.js';

// `open` loads its TUI and follows VM state once the first viewers show their consoles; a
// viewer that never connects must not keep the TUI away.

const toClose: (() => unknown)[] = [];
afterEach(async () => {
  while (toClose.length) await toClose.pop()?.();
});

describe('settledOrAfter', () => {
  it('resolves after the time when the promise never settles, and at once when it settles first', async () => {
    const never = new Promise(() => undefined);
    const started = performance.now();
    await settledOrAfter(never, 30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    await settledOrAfter(Promise.reject(new Error('a failed start')), 60_000);
  });
});

describe('firstClientSettled', () => {
  it('waits for the first client of a listening session, and not for a session that failed', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const session = new ConsoleSession(sourceFor(vm.port));
    toClose.push(() => session.close());
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    let settled = false;
    const settling = firstClientSettled(session, 10).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    const client = net.connect(port, '127.0.0.1');
    await readLine(client);
    await settling;
    client.destroy();

    const failing = new ConsoleSession(sourceFor(vm.port, { check: () => Promise.reject(new Error('VMI is not running')) }));
    toClose.push(() => failing.close());
    await failing.start({ host: '127.0.0.1', port: 0 }).catch(() => undefined);
    await firstClientSettled(failing, 60_000);
  });
});
