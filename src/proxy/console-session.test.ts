import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { VconsoleError } from '../errors.js';
import { portIsClosed } from '../../test/support/cli.js';
import { greeterSession as startGreeterSession, readLine, sourceFor, startGreeter } from '../../test/support/fake-console.js';
import { waitFor } from '../../test/support/wait.js';
import { ConsoleSession } from './console-session.js';
import { SESSION_MOVES, SessionClosedError, type SessionPhase } from './session-phase.js';
import { IllegalTransitionError, StateMachine } from '../state-machine/state-machine.js';
import type { SessionLogEntry, UpstreamSource } from './types.js';

const LOOPBACK = { host: '127.0.0.1', port: 0 };

const toClose: (() => unknown)[] = [];
afterEach(async () => {
  while (toClose.length) await toClose.pop()?.();
});

/** A stand-in VM and a session over it, with its log (`extra` overrides source members), both closed after the test. */
async function greeterSession(extra: Partial<UpstreamSource> = {}) {
  const made = await startGreeterSession((close) => toClose.push(close), extra);
  return { ...made, logs: logsOf(made.session) };
}

/** A greeter session whose pre-flight fails ("VMI is not running") until heal(). */
async function sessionFailingItsCheck() {
  let healthy = false;
  const check = async () => {
    if (!healthy) throw new Error('VMI is not running');
  };
  return { ...(await greeterSession({ check })), heal: () => (healthy = true) };
}

function logsOf(session: ConsoleSession): SessionLogEntry[] {
  const logs: SessionLogEntry[] = [];
  session.on('log', (entry) => logs.push(entry));
  return logs;
}

/** A viewer connected through the session's port, past the greeting. */
async function viewer(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await readLine(socket);
  return socket;
}

describe('ConsoleSession', () => {
  it('dials a fresh upstream for every client, one after another and at once', async () => {
    const { source, session } = await greeterSession();
    const { port } = await session.start(LOOPBACK);

    const first = net.connect(port, '127.0.0.1');
    expect(await readLine(first)).toBe('hello 1');
    first.destroy();
    const second = net.connect(port, '127.0.0.1');
    const third = net.connect(port, '127.0.0.1');
    const lines = [await readLine(second), await readLine(third)].sort();
    expect(lines).toEqual(['hello 2', 'hello 3']);
    expect(source.dials).toBe(3);
    expect(session.snapshot().totalClients).toBe(3);
    second.destroy();
    third.destroy();
  });

  it('closes the client and records the error when the upstream cannot be dialled', async () => {
    const session = new ConsoleSession({
      name: 'test/vm',
      provider: 'test',
      facts: {},
      dial: async () => {
        throw new Error('console refused');
      },
    });
    toClose.push(() => session.close());
    const { port } = await session.start(LOOPBACK);
    const client = net.connect(port, '127.0.0.1');
    await once(client, 'close');
    expect(session.snapshot().lastError).toBe('console refused');
    expect(session.snapshot().state).toBe('listening');
  });

  it('moves to error when the pre-flight fails, and listens after a retry', async () => {
    const { session, heal } = await sessionFailingItsCheck();
    await expect(session.start(LOOPBACK)).rejects.toThrow('VMI is not running');
    expect(session.snapshot()).toMatchObject({ state: 'error', lastError: 'VMI is not running' });
    heal();
    const { port } = await session.start(LOOPBACK);
    expect(session.snapshot().state).toBe('listening');
    expect(await readLine(net.connect(port, '127.0.0.1'))).toBe('hello 1');
  });

  it('logs a takeover on an exclusive console once the new upstream is open, and why the old client lost its console', async () => {
    const { vm, session, logs } = await greeterSession({ facts: { exclusive: true } });
    const { port } = await session.start(LOOPBACK);
    const a = await viewer(port);
    const b = await viewer(port);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^client 2 replaces the console session of client 1: /) }),
    );
    // The VM drops the session it no longer serves, as KubeVirt does.
    const [first] = vm.sockets;
    first.destroy();
    await once(a, 'close');
    await waitFor(() =>
      logs.some(
        (l) => l.message === "client 1 disconnected: the console closed the connection: client 2 took over the VM's console session",
      ),
    );
    b.destroy();
  });

  it('logs a takeover also when the console dropped the older session before the new upstream reported open', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const greeter = sourceFor(vm.port);
    const session: ConsoleSession = new ConsoleSession({
      ...greeter,
      facts: { exclusive: true },
      dial: async (context) => {
        for (const s of vm.sockets) s.destroy();
        await waitFor(() => session.snapshot().clients === 1, 'the older client to be gone');
        return greeter.dial(context);
      },
    });
    toClose.push(() => session.close());
    const logs = logsOf(session);
    const { port } = await session.start(LOOPBACK);
    const a = await viewer(port);
    const aClosed = once(a, 'close');
    const b = await viewer(port);
    await aClosed;
    expect(logs.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        'client 1 disconnected: the console closed the connection',
        expect.stringMatching(/^client 2 replaces the console session of client 1: /),
      ]),
    );
    b.destroy();
  });

  it('does not announce a takeover the console refused (--preserve-session)', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const greeter = sourceFor(vm.port);
    const session = new ConsoleSession({
      ...greeter,
      facts: { exclusive: true },
      dial: async (context) => {
        if (vm.sockets.size > 0) throw new VconsoleError('another client holds the VNC session');
        return greeter.dial(context);
      },
    });
    toClose.push(() => session.close());
    const logs = logsOf(session);
    const { port } = await session.start(LOOPBACK);
    const a = await viewer(port);
    const b = net.connect(port, '127.0.0.1');
    await once(b, 'close');
    await waitFor(() => logs.some((l) => l.level === 'error' && l.message === 'client 2: another client holds the VNC session'));
    expect(logs.filter((l) => /replaces/.test(l.message))).toEqual([]);
    a.destroy();
  });

  it('closes the client when the upstream dies mid-stream', async () => {
    const { vm, session } = await greeterSession();
    const { port } = await session.start(LOOPBACK);
    const client = await viewer(port);
    for (const s of vm.sockets) s.destroy();
    await once(client, 'close');
    await waitFor(() => session.snapshot().clients === 0);
  });

  it('reports traffic while bytes flow, without a timer when idle', async () => {
    const { session } = await greeterSession();
    const { port } = await session.start(LOOPBACK);
    const traffic = once(session, 'traffic');
    const client = await viewer(port);
    const [snapshot] = await traffic;
    expect(snapshot.bytesIn).toBe('hello 1\n'.length);
    client.destroy();
  });

  it("says the console closed a client's connection, or the viewer did", async () => {
    const { vm, session, logs } = await greeterSession();
    const { port } = await session.start(LOOPBACK);
    const a = await viewer(port);
    for (const s of vm.sockets) s.end();
    await once(a, 'close');
    await waitFor(
      () => logs.some((l) => l.message === 'client 1 disconnected: the console closed the connection'),
      'the console-side close line',
    );
    const b = await viewer(port);
    b.destroy();
    await waitFor(
      () => logs.some((l) => l.message === 'client 2 disconnected: the viewer closed the connection'),
      'the viewer-side close line',
    );
    expect(logs.filter((l) => l.message === 'client 1 disconnected' || l.message === 'client 2 disconnected')).toEqual([]);
  });
});

describe('ConsoleSession start and close', () => {
  it('two start() calls at once share one listener: after close() no port listens', async () => {
    const { session } = await greeterSession();
    const bound = await Promise.all([session.start(LOOPBACK), session.start(LOOPBACK)]);
    expect(bound[1]).toEqual(bound[0]);
    await session.close();
    for (const { port } of bound) expect(await portIsClosed(port)).toBe(true);
  });

  it('five start() calls after a failed pre-flight share one retry: after close() no port listens', async () => {
    const { session, heal } = await sessionFailingItsCheck();
    await expect(session.start(LOOPBACK)).rejects.toThrow('VMI is not running');
    heal();
    const bound = await Promise.all(Array.from({ length: 5 }, () => session.start(LOOPBACK)));
    expect(new Set(bound.map((b) => b.port)).size).toBe(1);
    await session.close();
    for (const { port } of bound) expect(await portIsClosed(port)).toBe(true);
  });

  it('a close during the pre-flight is a cancel: start() rejects with SessionClosedError and nothing is logged as an error', async () => {
    let checking: () => void = () => undefined;
    const inCheck = new Promise<void>((resolve) => (checking = resolve));
    const { session, logs } = await greeterSession({
      check: (signal) =>
        new Promise<void>((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error));
          checking();
        }),
    });
    const started = session.start(LOOPBACK);
    await inCheck;
    await session.close();
    await expect(started).rejects.toBeInstanceOf(SessionClosedError);
    await expect(session.start(LOOPBACK)).rejects.toBeInstanceOf(SessionClosedError);
    expect(session.snapshot()).toMatchObject({ state: 'closed', lastError: undefined, port: undefined });
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('moves only as its table says: a closed session never starts again, a listening one only closes', () => {
    const closed = new StateMachine<SessionPhase>('ConsoleSession', SESSION_MOVES, { kind: 'closed', closing: Promise.resolve() });
    expect(() => closed.to({ kind: 'connecting', starting: new Promise(() => undefined) })).toThrow(IllegalTransitionError);
    const listening = new StateMachine<SessionPhase>('ConsoleSession', SESSION_MOVES, {
      kind: 'listening',
      listener: { server: net.createServer(), bound: { address: '127.0.0.1', port: 1 } },
      startedAt: 0,
    });
    expect(['idle', 'connecting', 'error'].some((kind) => listening.can(kind as SessionPhase['kind']))).toBe(false);
    expect(new StateMachine<SessionPhase>('ConsoleSession', SESSION_MOVES, { kind: 'error' }).can('connecting')).toBe(true);
  });

  it('shows an address only while it has a listener: not once its start failed, nor once closed', async () => {
    const { session, heal } = await sessionFailingItsCheck();
    let early: number | undefined;
    await expect(session.start({ ...LOOPBACK, onBound: (bound) => void (early = bound.port) })).rejects.toThrow('VMI is not running');
    expect(early).toBeGreaterThan(0);
    expect(session.snapshot()).toMatchObject({ state: 'error', address: undefined, port: undefined, startedAt: undefined });
    heal();
    const { port } = await session.start(LOOPBACK);
    expect(session.snapshot()).toMatchObject({ state: 'listening', port, startedAt: expect.any(Number) });
    await session.close();
    expect(session.snapshot()).toMatchObject({ state: 'closed', port: undefined, startedAt: undefined });
  });

  it('close() releases what the source started for the session, once', async () => {
    let releases = 0;
    const release = async () => {
      releases++;
    };
    const { session } = await greeterSession({ release });
    await session.start(LOOPBACK);
    await Promise.all([session.close(), session.close()]);
    await session.close();
    expect(releases).toBe(1);
  });
});
