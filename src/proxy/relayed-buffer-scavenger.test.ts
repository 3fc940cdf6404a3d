import { constants } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../test/support/wait.js';
import { duplexPair } from '../streams/duplex-pair.js';
import { relay } from './relay.js';
import { RelayedBufferScavenger, relayedBufferScavenger, scavengesOn, youngGenerationCollector } from './relayed-buffer-scavenger.js';

const scavenges = scavengesOn(process.versions.node);

/** Garbage collections of this process by kind, as perf_hooks reports them. */
function watchCollections() {
  const kinds: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) kinds.push(entry.detail?.kind ?? -1);
  });
  observer.observe({ entryTypes: ['gc'] });
  return { kinds, stop: () => observer.disconnect() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RelayedBufferScavenger', () => {
  it('collects once per so many bytes relayed, and asks for its collector once', () => {
    const collect = vi.fn();
    const makeCollect = vi.fn(() => collect);
    const scavenger = new RelayedBufferScavenger(100, makeCollect);
    scavenger.relayed(60);
    expect(collect).not.toHaveBeenCalled();
    expect(makeCollect).not.toHaveBeenCalled(); // nothing is set up before a collection is due
    scavenger.relayed(60);
    expect(collect).toHaveBeenCalledTimes(1);
    scavenger.relayed(99);
    expect(collect).toHaveBeenCalledTimes(1);
    scavenger.relayed(1);
    scavenger.relayed(250);
    expect(collect).toHaveBeenCalledTimes(3);
    expect(makeCollect).toHaveBeenCalledTimes(1);
  });

  it('does nothing when no collector can be had', () => {
    const makeCollect = vi.fn(() => undefined);
    const scavenger = new RelayedBufferScavenger(10, makeCollect);
    for (let i = 0; i < 5; i++) scavenger.relayed(10);
    expect(makeCollect).toHaveBeenCalledTimes(1);
  });

  it('runs on Node.js 20, where it measured a win, and leaves Node.js 22 (the single executable) to V8', () => {
    expect(scavengesOn('20.20.2')).toBe(true);
    expect(scavengesOn('22.23.3')).toBe(false);
  });

  it.skipIf(!scavenges)("gets V8's collector at run time and it collects the young generation only", async () => {
    const collect = youngGenerationCollector();
    expect(collect).toBeTypeOf('function');
    const watch = watchCollections();
    try {
      collect!();
      await waitFor(() => watch.kinds.length > 0);
      expect(watch.kinds[0]).toBe(constants.NODE_PERFORMANCE_GC_MINOR);
    } finally {
      watch.stop();
    }
  });

  it('counts every byte a relay moves, both ways', async () => {
    const noted = vi.spyOn(relayedBufferScavenger, 'relayed');
    const { viewer, vm, close } = relayedPair();
    vm.write(Buffer.alloc(3000));
    viewer.write(Buffer.alloc(5));
    await waitFor(() => noted.mock.calls.reduce((sum, [bytes]) => sum + bytes, 0) === 3005);
    close();
  });

  it.skipIf(!scavenges)('keeps a relay of many fresh buffers (as TLS reads make them) from setting off a full collection', async () => {
    const { viewer, vm, close } = relayedPair();
    let received = 0;
    viewer.on('data', (chunk: Buffer) => (received += chunk.length));
    const watch = watchCollections();
    const total = 256 * 1024 * 1024;
    try {
      for (let sent = 0; sent < total; sent += 64 * 1024) {
        // Each chunk with a backing store of its own, as Node's TLS gives every record.
        if (!vm.write(Buffer.allocUnsafeSlow(64 * 1024))) await new Promise((r) => vm.once('drain', r));
      }
      await waitFor(() => received === total, 'every byte relayed');
      // perf_hooks reports collections after the fact: one more scavenge marks the end of the list.
      youngGenerationCollector()!();
      await waitFor(() => watch.kinds.at(-1) === constants.NODE_PERFORMANCE_GC_MINOR, 'the last scavenge reported');
      // Without the scavenger: six full collections (an incremental marking and a mark-compact
      // each: 8, 4, 8, 4, ...). With it none come of the relay; one is let pass, which V8 may
      // start for reasons of its own (its memory reducer).
      const full = watch.kinds.filter((kind) => kind !== constants.NODE_PERFORMANCE_GC_MINOR);
      expect(
        full.filter((kind) => kind === constants.NODE_PERFORMANCE_GC_MAJOR).length,
        `collections: ${full.join(', ')}`,
      ).toBeLessThanOrEqual(1);
    } finally {
      watch.stop();
      close();
    }
  });
});

/** A relay between two in-memory pairs: `viewer` and `vm` are the far ends, both read. */
function relayedPair() {
  const [viewer, clientSide] = duplexPair();
  const [upstreamSide, vm] = duplexPair();
  void relay(clientSide, upstreamSide, { onDownstream: () => undefined, onUpstream: () => undefined });
  viewer.resume();
  vm.resume();
  return { viewer, vm, close: () => [viewer, vm].forEach((s) => s.destroy()) };
}
