import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { readLine, sourceFor, startGreeter } from '../../test/support/fake-console.js';
import { waitFor } from '../../test/support/wait.js';
import { DuplicateConsoleError, SessionRegistry } from './session-registry.js';

const toClose: (() => unknown)[] = [];
afterEach(async () => {
  while (toClose.length) await toClose.pop()?.();
});

describe('SessionRegistry', () => {
  it('closeAll stops every listener and connection', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const registry = new SessionRegistry();
    const a = registry.add(sourceFor(vm.port, { name: 'test/vm-a' }));
    const b = registry.add(sourceFor(vm.port, { name: 'test/vm-b' }));
    const pa = (await a.start({ host: '127.0.0.1', port: 0 })).port;
    const pb = (await b.start({ host: '127.0.0.1', port: 0 })).port;
    const client = net.connect(pa, '127.0.0.1');
    await readLine(client);
    const clientClosed = once(client, 'close');
    await registry.closeAll();
    await clientClosed;
    for (const port of [pa, pb]) {
      const probe = net.connect(port, '127.0.0.1');
      const [err] = (await once(probe, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ECONNREFUSED');
    }
    await waitFor(() => vm.sockets.size === 0);
  });

  it('refuses a second session for a console it lists, judged by provider and name or by identity', () => {
    const registry = new SessionRegistry();
    registry.add(sourceFor(1, { provider: 'demo', name: 'demo:a' }));
    expect(() => registry.add(sourceFor(1, { provider: 'demo', name: 'demo:a' }))).toThrow(DuplicateConsoleError);
    expect(() => registry.add(sourceFor(1, { provider: 'demo', name: 'demo:a' }))).toThrow(
      'demo:a is named more than once: one session serves it',
    );
    // Same name, another console: a websocket URL with another token.
    registry.add(sourceFor(1, { provider: 'websocket', name: 'ws://h/', facts: { identity: 'ws://h/?token=a' } }));
    registry.add(sourceFor(1, { provider: 'websocket', name: 'ws://h/', facts: { identity: 'ws://h/?token=b' } }));
    registry.add(sourceFor(1, { provider: 'other', name: 'demo:a' }));
  });

  it('refuses before it listens a session whose name its pre-flight made that of a session already admitted', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const registry = new SessionRegistry();
    toClose.push(() => registry.closeAll());
    const removed: number[] = [];
    registry.on('removed', (s) => removed.push(s.id));
    // `testvm` and `default/testvm`: the bare name learns its namespace in the pre-flight.
    const bareSource = sourceFor(vm.port, { provider: 'kubevirt', name: 'testvm' });
    bareSource.check = async () => {
      (bareSource as { name: string }).name = 'default/testvm';
    };
    const exact = registry.add(sourceFor(vm.port, { provider: 'kubevirt', name: 'default/testvm' }));
    const bare = registry.add(bareSource);
    const [kept, refused] = await Promise.allSettled([
      exact.start({ host: '127.0.0.1', port: 0 }),
      bare.start({ host: '127.0.0.1', port: 0 }),
    ]);
    expect(kept.status).toBe('fulfilled');
    expect(refused).toMatchObject({ status: 'rejected', reason: expect.any(DuplicateConsoleError) });
    expect(bare.snapshot()).toMatchObject({ state: 'closed', port: undefined });
    expect(registry.get(bare.id)).toBeUndefined();
    await waitFor(() => removed.includes(bare.id), 'the refused session to be removed');
    expect(registry.get(exact.id)?.snapshot().state).toBe('listening');
  });

  it('refuses a duplicate before a sharing wrapper dials its console: the session it duplicates keeps it', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const registry = new SessionRegistry();
    toClose.push(() => registry.closeAll());
    // A hub's pre-flight: the console's own check (the bare name learns its namespace), admit, then the shared dial.
    const dialled: string[] = [];
    const sharing = (name: string, exactName: string) => {
      const source = sourceFor(vm.port, { provider: 'kubevirt', name });
      source.check = async (_signal, admit) => {
        (source as { name: string }).name = exactName;
        admit?.();
        dialled.push(name);
      };
      return source;
    };
    const exact = registry.add(sharing('default/testvm', 'default/testvm'));
    await exact.start({ host: '127.0.0.1', port: 0 });
    const bare = registry.add(sharing('testvm', 'default/testvm'));
    await expect(bare.start({ host: '127.0.0.1', port: 0 })).rejects.toBeInstanceOf(DuplicateConsoleError);
    expect(dialled).toEqual(['default/testvm']);
    expect(bare.snapshot()).toMatchObject({ state: 'closed', port: undefined });
    expect(bare.snapshot().lastError).toBeUndefined();
    expect(exact.snapshot().state).toBe('listening');
  });
});
