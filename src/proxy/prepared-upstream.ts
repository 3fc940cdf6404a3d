import type { Duplex } from 'node:stream';
import { describeError } from '../errors.js';
import type { DialContext, UpstreamSource } from './types.js';

/** What a client gets to relay: its upstream, and bytes the console sent before it came. */
export interface ClientUpstream {
  upstream: Duplex;
  /** Bytes the console sent before the client came (a banner of a server that speaks first), in order. */
  head: Buffer[];
}

/** Bytes kept for the client at most; past them the upstream is paused (its own buffers hold the rest). */
const HEAD_LIMIT_BYTES = 1024 * 1024;

/**
 * One upstream dialled before any client connects, for the client the caller knows is coming
 * (a viewer just launched): the dial then overlaps the viewer's own start-up instead of
 * following its connect. What the console says meanwhile is kept for that client; an upstream
 * that ends, fails or is not taken within `ttlMs` is dropped, and the client dials as usual.
 */
export class PreparedUpstream {
  private readonly abort = new AbortController();
  private readonly dialling: Promise<Duplex | undefined>;
  private upstream?: Duplex;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private alive = true;
  private readonly timer: NodeJS.Timeout;
  /** Takes this class's listeners off the upstream. */
  private unwatch = () => undefined as void;

  constructor(source: UpstreamSource, log: DialContext['log'], ttlMs: number) {
    this.timer = setTimeout(() => this.discard('not taken in time'), ttlMs);
    this.timer.unref();
    this.dialling = source.dial({ signal: this.abort.signal, log }).then(
      (upstream) => this.hold(upstream, log),
      (err: unknown) => {
        if (this.alive) log('debug', `opening the console ahead failed: ${describeError(err)}`);
        this.alive = false;
        return undefined;
      },
    );
  }

  private hold(upstream: Duplex, log: DialContext['log']): Duplex | undefined {
    if (!this.alive) {
      upstream.destroy();
      return undefined;
    }
    this.upstream = upstream;
    const dropped = (why: string) => () => {
      if (this.alive) log('debug', `the console opened ahead ${why}; the viewer's connection opens its own`);
      this.discard();
    };
    const listeners = { data: this.keep, end: dropped('ended'), close: dropped('closed'), error: dropped('failed') };
    for (const [event, listener] of Object.entries(listeners)) upstream.on(event, listener);
    this.unwatch = () => {
      for (const [event, listener] of Object.entries(listeners)) upstream.off(event, listener);
    };
    return upstream;
  }

  private readonly keep = (chunk: Buffer) => {
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes >= HEAD_LIMIT_BYTES) this.upstream?.pause();
  };

  /**
   * The upstream for the client that just connected, once its dial completes; undefined when
   * it failed, ended or was dropped. It comes paused, without this class's listeners: the
   * caller writes `head` to the client, then resumes it.
   */
  async take(): Promise<ClientUpstream | undefined> {
    const upstream = await this.dialling;
    if (!upstream || !this.alive) return undefined;
    this.alive = false;
    clearTimeout(this.timer);
    upstream.pause();
    this.unwatch();
    return { upstream, head: this.head };
  }

  /** Drops the upstream (or the dial under way); take() then resolves to undefined. */
  discard(why?: string): void {
    if (!this.alive) return;
    this.alive = false;
    clearTimeout(this.timer);
    this.abort.abort(why === undefined ? undefined : new Error(why));
    this.upstream?.destroy();
  }
}
