import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Bytes relayed (all relays of the process together) between two young-generation collections.
 * 8 MiB: every chunk's backing store is freed long before V8's external-memory trigger
 * (64 MiB over the last full GC) is reached; 4 MiB measured no better (docs/PERF-DATAPATH.md).
 */
const SCAVENGE_EVERY_BYTES = 8 * 1024 * 1024;

type Collect = () => void;

/**
 * Runs a young-generation garbage collection (a scavenge) after every `everyBytes` relayed.
 *
 * Why: every chunk a relay moves is a Buffer with a backing store of its own outside the
 * JavaScript heap (Node's TLS makes one per 16 KiB record). The JavaScript objects per chunk
 * are tiny, so V8's young generation fills rarely, and dead backing stores pile up until V8's
 * external-memory trigger starts a *full* collection, which marks the whole heap of the CLI on
 * helper threads: a quarter of the proxy's CPU, and on a busy machine those threads take the
 * core the relay needs. A scavenge frees the same buffers for a fraction of that (the live
 * young objects are few), so the full collections do not come (docs/PERF-DATAPATH.md, "Busy").
 *
 * Guarantees: at most one collection per `everyBytes` relayed, none while nothing is relayed;
 * when the collector cannot be had (a Node.js without V8's gc extension), it does nothing.
 */
export class RelayedBufferScavenger {
  private readonly everyBytes: number;
  private readonly makeCollect: () => Collect | undefined;
  private collect: Collect | undefined | null = null;
  private sinceLast = 0;

  /** `makeCollect`: the collector, asked for once, on the first collection due. */
  constructor(everyBytes = SCAVENGE_EVERY_BYTES, makeCollect: () => Collect | undefined = youngGenerationCollector) {
    this.everyBytes = everyBytes;
    this.makeCollect = makeCollect;
  }

  /** Notes `bytes` relayed; collects once `everyBytes` have been since the last collection. */
  relayed(bytes: number): void {
    this.sinceLast += bytes;
    if (this.sinceLast < this.everyBytes) return;
    this.sinceLast = 0;
    if (this.collect === null) this.collect = this.makeCollect();
    this.collect?.();
  }
}

/**
 * Whether the scavenger runs on this Node.js: measured a win on Node.js 20 (the npm CLI's); on
 * Node.js 22 (the single executable's) it was not one (CPU per GiB 1.01-1.26x in three of four
 * runs, docs/PERF-DATAPATH.md, "Busy"; its V8 has far fewer full collections to save), so there
 * it is left to V8.
 */
export function scavengesOn(nodeVersion: string): boolean {
  return Number(nodeVersion.split('.')[0]) < 22;
}

/**
 * V8's own `gc` function, asked for a minor (young-generation) collection. It is not on the
 * global object without `--expose-gc`, and that flag at start-up would cost every command (a
 * code cache made under other flags is rejected): set at run time, it puts `gc` into contexts
 * made after it, such as this one.
 */
export function youngGenerationCollector(): Collect | undefined {
  if (!scavengesOn(process.versions.node)) return undefined;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('typeof gc === "function" ? gc : undefined');
    if (typeof gc !== 'function') return undefined;
    return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' });
  } catch {
    return undefined;
  }
}

/** The one scavenger of the process: every relay's bytes count towards it. */
export const relayedBufferScavenger = new RelayedBufferScavenger();
