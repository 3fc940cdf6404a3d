import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VconsoleError } from '../../errors.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import type { SessionSnapshot, UpstreamSource } from '../../proxy/types.js';
import { ConsoleStore, LOG_LIMIT, type SessionSourceEvents } from './console-store.js';
import { rowAddress, rowDisplayState, rowProblem } from '../layout/format.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A stand-in VM console: greets like an RFB server, then echoes. */
async function startConsoleServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write('RFB 003.008\n');
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function tcpSource(name: string, port: number): UpstreamSource {
  return {
    name,
    provider: 'test',
    facts: {},
    async dial() {
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    },
  };
}

/** Sessions of a stand-in provider whose start time is the fake clock's zero. */
const snapshot = (id: number, overrides: Partial<SessionSnapshot> = {}) =>
  sessionSnapshot(id, { name: `vm-${id}`, provider: 'test', startedAt: 0, ...overrides });

describe('ConsoleStore fed by a real SessionRegistry', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('lists each session with its state, local address, traffic, rate and error', async () => {
    const server = await startConsoleServer();
    cleanups.push(() => server.close());
    const registry = new SessionRegistry();
    cleanups.push(() => registry.closeAll());
    const store = new ConsoleStore(registry);
    cleanups.push(() => store.dispose());

    const good = registry.add(tcpSource('demo:vm-a', server.port));
    const bad = registry.add({
      name: 'demo:vm-b',
      provider: 'test',
      facts: {},
      check: async () => {
        throw new VconsoleError('VM vm-b is not running', { hint: 'start it first' });
      },
      dial: () => Promise.reject(new Error('unreachable')),
    });
    expect(store.getState().rows.map((r) => [r.session.name, rowDisplayState(r)])).toEqual([
      ['demo:vm-a', 'connecting'],
      ['demo:vm-b', 'connecting'],
    ]);

    const bound = await good.start({ host: '127.0.0.1', port: 0 });
    await expect(bad.start({ host: '127.0.0.1', port: 0 })).rejects.toThrow('not running');
    const [rowA, rowB] = store.getState().rows;
    expect(rowDisplayState(rowA)).toBe('listening');
    expect(rowAddress(rowA.session)).toBe(`127.0.0.1:${bound.port}`);
    expect(rowDisplayState(rowB)).toBe('error');
    expect(rowB.session.lastError).toBe('VM vm-b is not running; start it first');
    expect(store.getState().log.some((l) => l.name === 'demo:vm-a' && l.message.startsWith('listening on'))).toBe(true);

    const client = net.connect(bound.port, '127.0.0.1');
    cleanups.push(() => void client.destroy());
    client.on('data', () => undefined);
    client.write(Buffer.alloc(4000));
    const row = () => store.getState().rows[0];
    await waitFor(() => row().session.bytesOut >= 4000 && row().session.bytesIn >= 4000, 'traffic report');
    expect(row().rateOut).toBeGreaterThan(0);
    expect(row().session.clients).toBe(1);

    // No more traffic: the rate falls to 0 (the fake-clock tests below see its timer go away).
    await waitFor(() => row().rateOut === 0 && row().rateIn === 0, 'rate decay');

    await registry.remove(good.id);
    expect(store.getState().rows.map((r) => r.session.name)).toEqual(['demo:vm-b']);
  });
});

describe('ConsoleStore from events', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    return { source, store };
  }

  it('computes smoothed rates between traffic reports and decays them after a quiet second', () => {
    const { source, store } = setup();
    source.emit('added', { snapshot: () => snapshot(1) });
    vi.advanceTimersByTime(250);
    source.emit('traffic', snapshot(1, { bytesIn: 25_000, bytesOut: 500 }));
    expect(store.getState().rows[0].rateIn).toBeCloseTo(100_000);
    expect(store.getState().rows[0].rateOut).toBeCloseTo(2_000);
    vi.advanceTimersByTime(250);
    source.emit('traffic', snapshot(1, { bytesIn: 75_000, bytesOut: 500 }));
    // Smoothing: halfway between 100 000 and the new 200 000 B/s sample.
    expect(store.getState().rows[0].rateIn).toBeCloseTo(150_000);
    expect(store.getState().rows[0].session.bytesIn).toBe(75_000);
    expect(vi.getTimerCount()).toBe(1);

    vi.advanceTimersByTime(999);
    expect(store.getState().rows[0].rateIn).toBeGreaterThan(0);
    vi.advanceTimersByTime(1);
    expect(store.getState().rows[0].rateIn).toBe(0);
    expect(vi.getTimerCount()).toBe(0);

    // After an idle spell the new bytes count over one report interval, not the whole gap.
    vi.advanceTimersByTime(60_000);
    source.emit('traffic', snapshot(1, { bytesIn: 100_000, bytesOut: 500 }));
    expect(store.getState().rows[0].rateIn).toBeCloseTo(100_000);
    store.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('has no timers when idle, whatever else happens', () => {
    const { source, store } = setup();
    source.emit('added', { snapshot: () => snapshot(1, { state: 'connecting' }) });
    source.emit('change', snapshot(1));
    source.emit('log', { time: 0, sessionId: 1, name: 'vm-1', level: 'info', message: 'listening' });
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'open', name: 'TigerVNC' } });
    store.apply({ type: 'log', level: 'warn', message: 'no viewer found' });
    store.apply({ type: 'notice', text: 'hello' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells subscribers about each change and hands out a new state object only then', () => {
    const { source, store } = setup();
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    const before = store.getState();
    expect(store.getState()).toBe(before);
    source.emit('added', { snapshot: () => snapshot(1) });
    expect(listener).toHaveBeenCalledTimes(1);
    const after = store.getState();
    expect(after).not.toBe(before);
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'starting', name: 'TigerVNC' } });
    expect(store.getState().rows[0].viewer).toEqual({ state: 'starting', name: 'TigerVNC' });
    // An untouched row keeps its identity, so its memoised line is not redrawn.
    source.emit('added', { snapshot: () => snapshot(2) });
    const rowOne = store.getState().rows[0];
    source.emit('change', snapshot(2, { clients: 1 }));
    expect(store.getState().rows[0]).toBe(rowOne);
    unsubscribe();
    store.apply({ type: 'log', level: 'info', message: 'x' });
    expect(listener).toHaveBeenCalledTimes(4);
  });

  it('applies a viewer status set before the row exists and forgets removed sessions for good', () => {
    const { source, store } = setup();
    store.apply({ type: 'viewer', sessionId: 7, status: { state: 'open', name: 'remote-viewer' } });
    source.emit('added', { snapshot: () => snapshot(7) });
    expect(rowDisplayState(store.getState().rows[0])).toBe('viewer open');
    source.emit('removed', { id: 7 });
    source.emit('change', snapshot(7, { state: 'closed' }));
    source.emit('traffic', snapshot(7, { bytesIn: 10 }));
    expect(store.getState().rows).toEqual([]);
  });

  it('shows a shared console reconnecting over its open viewer, and live again after; the row changes only when that does', () => {
    const { source, store } = setup();
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: true } });
    source.emit('added', { snapshot: () => snapshot(3) });
    store.apply({ type: 'viewer', sessionId: 3, status: { state: 'open', name: 'TigerVNC' } });
    expect(rowDisplayState(store.getState().rows[0])).toBe('reconnecting');
    const row = store.getState().rows[0];
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: true } });
    expect(store.getState().rows[0]).toBe(row);
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: false } });
    expect(rowDisplayState(store.getState().rows[0])).toBe('viewer open');
    // A console that failed for good says so, whatever the hub last said.
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: true } });
    source.emit('change', snapshot(3, { state: 'error', lastError: 'gone' }));
    expect(rowDisplayState(store.getState().rows[0])).toBe('error');
  });

  it('shows a shared console that ended for good (its redial refused) as an error with the reason, made safe', () => {
    const { source, store } = setup();
    source.emit('added', { snapshot: () => snapshot(3) });
    store.apply({ type: 'viewer', sessionId: 3, status: { state: 'open', name: 'TigerVNC' } });
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: true } });
    store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: false, ended: 'connection to bastion\x1b[2J lost' } });
    const row = store.getState().rows[0];
    expect(rowDisplayState(row)).toBe('error');
    expect(rowProblem(row)).toMatch(/^connection to bastion.*lost$/);
    expect(rowProblem(row)).not.toContain('\x1b');
  });

  it('keeps the last log lines and drops debug lines unless asked', () => {
    const { source, store } = setup();
    source.emit('log', { time: 1, sessionId: 1, name: 'vm-1', level: 'debug', message: 'noise' });
    for (let i = 0; i < LOG_LIMIT + 50; i++) store.apply({ type: 'log', level: 'info', message: `line ${i}` });
    const { log } = store.getState();
    expect(log).toHaveLength(LOG_LIMIT);
    expect(log[0].message).toBe('line 50');
    expect(log.at(-1)?.message).toBe(`line ${LOG_LIMIT + 49}`);

    const verbose = new ConsoleStore(source, { logLevel: 'debug' });
    source.emit('log', { time: 1, sessionId: 1, name: 'vm-1', level: 'debug', message: 'noise' });
    expect(verbose.getState().log.map((l) => l.message)).toEqual(['noise']);
  });

  it('keeps a session whose viewer failed listening: the viewer failed, not the console', () => {
    const { source, store } = setup();
    source.emit('added', { snapshot: () => snapshot(1) });
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'failed', name: 'TigerVNC', message: 'cannot open display' } });
    const [row] = store.getState().rows;
    expect(row.session.state).toBe('listening');
    expect(rowDisplayState(row)).toBe('listening');
    expect(row.viewer.state).toBe('failed');
    expect(rowProblem(row)).toBe('TigerVNC failed: cannot open display');
  });

  it('makes every text from outside terminal-safe: names, errors, log lines, viewer messages, notices', () => {
    const { source, store } = setup();
    const hostile = 'vm\u001b[31mRED\u0007';
    const shown = 'vm\\e[31mRED\\x07';
    const published = { name: hostile, provider: 'os\u009b', lastError: 'boom\u001b[2J' };
    source.emit('added', { snapshot: () => snapshot(1, published) });
    source.emit('traffic', snapshot(1, { ...published, bytesIn: 10 }));
    source.emit('log', { time: 0, sessionId: 1, name: hostile, level: 'error', message: `bad\u0007` });
    store.apply({ type: 'viewer', sessionId: 1, status: { state: 'failed', name: `Tiger${'\u001b'}c`, message: `no\rdisplay` } });
    store.apply({ type: 'log', level: 'info', message: `from ${hostile}` });
    store.apply({ type: 'notice', text: `notice ${hostile}` });
    store.apply({ type: 'no-viewer', notice: { lookedFor: [hostile], install: `apt\u0007` } });

    const state = store.getState();
    const [row] = state.rows;
    expect(row.session.name).toBe(shown);
    expect(row.session.provider).toBe('os\\x9b');
    expect(row.session.lastError).toBe('boom\\e[2J');
    expect(row.viewer).toEqual({ state: 'failed', name: 'Tiger\\ec', message: 'no\\rdisplay' });
    expect(state.log.map((l) => [l.name, l.message])).toEqual([
      [shown, 'bad\\x07'],
      [undefined, `from ${shown}`],
    ]);
    expect(state.notice).toBe(`notice ${shown}`);
    expect(state.noViewer).toEqual({ lookedFor: [shown], install: 'apt\\x07' });
    const texts: string[] = [];
    JSON.stringify(state, (_key, value: unknown) => {
      if (typeof value === 'string') texts.push(value);
      return value;
    });
    expect(texts.filter((text) => /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(text))).toEqual([]);
  });
});
