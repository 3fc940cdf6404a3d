import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { greeterSession as startGreeterSession, readLine, sourceFor, startGreeter } from '../../test/support/fake-console.js';
import { waitFor } from '../../test/support/wait.js';
import { ConsoleSession, type BoundAddress } from './console-session.js';
import { PreparedUpstream } from './prepared-upstream.js';
import type { UpstreamSource } from './types.js';

// What `open` relies on to show a VM's screen sooner: listening while the pre-flight runs, and
// the first viewer's upstream dialled while the viewer starts.

const toClose: (() => unknown)[] = [];
afterEach(async () => {
  while (toClose.length) await toClose.pop()?.();
});

const greeterSession = (extra: Partial<UpstreamSource> = {}) => startGreeterSession((close) => toClose.push(close), extra);

/** A pre-flight that waits for pass() or fail(). */
function heldCheck() {
  let pass = () => undefined as void;
  let fail = (_err: Error) => undefined as void;
  const started = { value: false };
  const check = () => {
    started.value = true;
    return new Promise<void>((resolve, reject) => {
      pass = resolve;
      fail = reject;
    });
  };
  return { check, started, pass: () => pass(), fail: (err: Error) => fail(err) };
}

/** Starts `session` listening early; resolves with the start and the address it was bound to. */
async function startEarly(session: ConsoleSession) {
  let bound: BoundAddress | undefined;
  const starting = session.start({ host: '127.0.0.1', port: 0, onBound: (at) => void (bound = at) });
  starting.catch(() => undefined);
  await waitFor(() => bound !== undefined);
  return { starting, bound: bound as BoundAddress };
}

describe('ConsoleSession listening before its pre-flight', () => {
  it('tells its address before the pre-flight ends; a client waits for the pre-flight, then gets the console', async () => {
    const held = heldCheck();
    const { source, session } = await greeterSession({ check: held.check });
    const { starting, bound } = await startEarly(session);
    expect(session.snapshot().state).toBe('connecting');

    const client = net.connect(bound.port, '127.0.0.1');
    await once(client, 'connect');
    await waitFor(() => held.started.value && session.snapshot().clients === 1);
    expect(source.dials).toBe(0);
    held.pass();
    expect(await starting).toEqual(bound);
    expect(await readLine(client)).toBe('hello 1');
    client.destroy();
  });

  it('closes its clients and the listener when the pre-flight fails', async () => {
    const held = heldCheck();
    const { source, session } = await greeterSession({ check: held.check });
    const { starting, bound } = await startEarly(session);
    const client = net.connect(bound.port, '127.0.0.1');
    await waitFor(() => session.snapshot().clients === 1);
    held.fail(new Error('VMI is not running'));
    await expect(starting).rejects.toThrow('VMI is not running');
    await once(client, 'close');
    expect(source.dials).toBe(0);
    expect(session.snapshot()).toMatchObject({ state: 'error', lastError: 'VMI is not running' });
    const refused = net.connect(bound.port, '127.0.0.1');
    await expect(once(refused, 'connect')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('starts the pre-flight only once what was started at the address (the viewer) is under way', async () => {
    const held = heldCheck();
    const { session } = await greeterSession({ check: held.check });
    let launched = () => undefined as void;
    const launching = new Promise<void>((resolve) => (launched = resolve));
    const starting = session.start({ host: '127.0.0.1', port: 0, onBound: () => launching });
    await waitFor(() => session.snapshot().port !== undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.started.value).toBe(false);
    launched();
    await waitFor(() => held.started.value);
    held.pass();
    await starting;
  });
});

describe('ConsoleSession.dialAhead', () => {
  it('gives the first client the upstream opened before it came, with what the console said meanwhile', async () => {
    const { vm, source, session } = await greeterSession();
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    session.dialAhead();
    // The console has greeted the upstream opened ahead before any client exists.
    await waitFor(() => source.dials === 1 && vm.sockets.size === 1);
    const client = net.connect(port, '127.0.0.1');
    expect(await readLine(client)).toBe('hello 1');
    client.write('ping\n');
    expect(await readLine(client)).toBe('ping');
    expect(source.dials).toBe(1);
    expect(session.snapshot().bytesIn).toBeGreaterThanOrEqual('hello 1\nping\n'.length);
    // The next client dials its own, as always.
    const second = net.connect(port, '127.0.0.1');
    expect(await readLine(second)).toBe('hello 2');
    client.destroy();
    second.destroy();
  });

  it('drops an upstream that closes before its client comes; the client dials a fresh one', async () => {
    const { vm, source, session } = await greeterSession();
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    session.dialAhead();
    await waitFor(() => vm.sockets.size === 1);
    for (const s of vm.sockets) s.destroy();
    await waitFor(() => vm.sockets.size === 0);
    const client = net.connect(port, '127.0.0.1');
    expect(await readLine(client)).toBe('hello 2');
    expect(source.dials).toBe(2);
    client.destroy();
  });

  it('dials nothing ahead while a client is connected (it would take over its console session)', async () => {
    const { source, session } = await greeterSession();
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const client = net.connect(port, '127.0.0.1');
    expect(await readLine(client)).toBe('hello 1');
    session.dialAhead();
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.dials).toBe(1);
    client.destroy();
  });

  it('closes the upstream opened ahead when the session closes', async () => {
    const { vm, session } = await greeterSession();
    await session.start({ host: '127.0.0.1', port: 0 });
    session.dialAhead();
    await waitFor(() => vm.sockets.size === 1);
    await session.close();
    await waitFor(() => vm.sockets.size === 0);
  });
});

describe('ConsoleSession.dialAhead while the pre-flight runs', () => {
  it('dials before the pre-flight has passed, and gives that upstream to the client once it has', async () => {
    const held = heldCheck();
    const { vm, source, session } = await greeterSession({ check: held.check });
    const { starting, bound } = await startEarly(session);
    session.dialAhead();
    await waitFor(() => source.dials === 1 && vm.sockets.size === 1);
    expect(held.started.value).toBe(true);
    const client = net.connect(bound.port, '127.0.0.1');
    await waitFor(() => session.snapshot().clients === 1);
    held.pass();
    await starting;
    expect(await readLine(client)).toBe('hello 1');
    expect(source.dials).toBe(1);
    client.destroy();
  });

  it('drops the upstream dialled for a console type the pre-flight then changed, and dials the right one', async () => {
    const held = heldCheck();
    const { vm, source, session } = await greeterSession({
      facts: { consoleType: 'vnc' },
      check: async () => {
        await held.check();
        // The real providers settle the console type in their pre-flight (OpenStack's
        // `auto`); UpstreamSource marks it read-only for its users, not for its provider.
        source.facts.consoleType = 'serial';
      },
    });
    const { starting, bound } = await startEarly(session);
    session.dialAhead();
    await waitFor(() => vm.sockets.size === 1);
    held.pass();
    await starting;
    const client = net.connect(bound.port, '127.0.0.1');
    expect(await readLine(client)).toBe('hello 2');
    expect(source.dials).toBe(2);
    client.destroy();
  });

  /** A console guessed VNC whose pre-flight, held until `held.pass()`, settles serial. */
  async function vncGuessSettlingSerial() {
    const held = heldCheck();
    const { source, session } = await greeterSession({
      facts: { consoleType: 'vnc' },
      check: async () => {
        await held.check();
        source.facts.consoleType = 'serial';
      },
    });
    return { held, source, session };
  }

  it('closes a client that came while the pre-flight ran once the pre-flight settles another console type', async () => {
    const { held, source, session } = await vncGuessSettlingSerial();
    const { starting, bound } = await startEarly(session);
    // A viewer launched for the type guessed before the pre-flight (a VNC viewer).
    const early = net.connect(bound.port, '127.0.0.1');
    await once(early, 'connect');
    await waitFor(() => held.started.value && session.snapshot().clients === 1);
    held.pass();
    await starting;
    await once(early, 'close');
    expect(source.dials).toBe(0);
    // A client that comes for the type now settled gets the console.
    const later = net.connect(bound.port, '127.0.0.1');
    expect(await readLine(later)).toBe('hello 1');
    later.destroy();
  });

  it('closes a client that came while the pre-flight ran, after it had settled another type but before it ended', async () => {
    const held = heldCheck();
    const { source, session } = await greeterSession({
      facts: { consoleType: 'vnc' },
      check: async () => {
        // KubeVirt's pre-flight sets the type, then still asks whether the console may be opened.
        source.facts.consoleType = 'serial';
        await held.check();
      },
    });
    const { starting, bound } = await startEarly(session);
    const early = net.connect(bound.port, '127.0.0.1');
    const outcome = new Promise((resolve) => {
      early.once('data', () => resolve('got console bytes'));
      early.once('close', () => resolve('closed'));
    });
    await waitFor(() => held.started.value && session.snapshot().clients === 1);
    held.pass();
    await starting;
    expect(await outcome).toBe('closed');
    expect(source.dials).toBe(0);
  });

  it('closes a client that comes after the pre-flight settled another type until what was started for the old one is stopped', async () => {
    const { held, source, session } = await vncGuessSettlingSerial();
    let bound: BoundAddress | undefined;
    let stopped = () => undefined as void;
    const stopping = new Promise<void>((resolve) => (stopped = resolve));
    let changedTo: string | undefined;
    const starting = session.start({
      host: '127.0.0.1',
      port: 0,
      onBound: (at) => void (bound = at),
      onTypeChanged: (type) => {
        changedTo = type;
        return stopping;
      },
    });
    await waitFor(() => held.started.value);
    held.pass();
    await waitFor(() => changedTo !== undefined, 'the session to tell the type changed');
    expect(changedTo).toBe('serial');
    // The viewer launched for VNC, reconnecting before it is stopped, or anyone else meanwhile.
    const meanwhile = net.connect((bound as BoundAddress).port, '127.0.0.1');
    const meanwhileClosed = once(meanwhile, 'close');
    await waitFor(() => session.snapshot().totalClients === 1);
    stopped();
    await starting;
    await meanwhileClosed;
    expect(source.dials).toBe(0);
    const later = net.connect((bound as BoundAddress).port, '127.0.0.1');
    expect(await readLine(later)).toBe('hello 1');
    later.destroy();
  });

  it('keeps the connection of a client refused for its type open until what was started for the old type is stopped', async () => {
    const { held, session } = await vncGuessSettlingSerial();
    const seen: string[] = [];
    let early: net.Socket | undefined;
    const starting = session.start({
      host: '127.0.0.1',
      port: 0,
      onBound: (at) => {
        early = net.connect(at.port, '127.0.0.1');
        early.once('close', () => seen.push('connection closed'));
      },
      onTypeChanged: async () => {
        // Stopping the viewer takes a while: long enough for a connection closed meanwhile to be seen closed.
        const another = net.connect((early as net.Socket).remotePort ?? 0, '127.0.0.1');
        another.on('error', () => undefined);
        toClose.push(() => another.destroy());
        await waitFor(() => session.snapshot().totalClients === 2);
        seen.push('viewer stopped');
      },
    });
    await waitFor(() => held.started.value && session.snapshot().clients === 1);
    held.pass();
    await starting;
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(['viewer stopped', 'connection closed']);
  });

  it('holds a client that came while the viewer was being launched, before the pre-flight began, for the pre-flight too', async () => {
    const { held, source, session } = await vncGuessSettlingSerial();
    let early: net.Socket | undefined;
    // What is launched at the address (a viewer) is still starting when a client comes.
    const starting = session.start({
      host: '127.0.0.1',
      port: 0,
      onBound: async (at) => {
        early = net.connect(at.port, '127.0.0.1');
        await waitFor(() => session.snapshot().clients === 1);
      },
    });
    starting.catch(() => undefined);
    await waitFor(() => held.started.value);
    held.pass();
    await starting;
    await once(early as net.Socket, 'close');
    expect(source.dials).toBe(0);
  });

  it('closes the upstream dialled ahead when the pre-flight fails', async () => {
    const held = heldCheck();
    const { vm, session } = await greeterSession({ check: held.check });
    const { starting } = await startEarly(session);
    session.dialAhead();
    await waitFor(() => vm.sockets.size === 1);
    held.fail(new Error('VMI is not running'));
    await expect(starting).rejects.toThrow('VMI is not running');
    await waitFor(() => vm.sockets.size === 0);
  });
});

describe('PreparedUpstream', () => {
  it('closes an upstream nobody took within its time to live', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const prepared = new PreparedUpstream(sourceFor(vm.port), () => undefined, 50);
    await waitFor(() => vm.sockets.size === 1);
    await waitFor(() => vm.sockets.size === 0);
    expect(await prepared.take()).toBeUndefined();
  });

  it('stops reading past its limit and keeps every byte for the client', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const server = net.createServer((s) => s.end(big));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    toClose.push(() => server.close());
    const prepared = new PreparedUpstream(sourceFor((server.address() as net.AddressInfo).port), () => undefined, 10_000);
    const taken = await prepared.take();
    if (!taken) throw new Error('no upstream');
    const chunks = [...taken.head];
    taken.upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
    taken.upstream.resume();
    await once(taken.upstream, 'end');
    expect(Buffer.concat(chunks).equals(big)).toBe(true);
  });
});
