import { Duplex } from 'node:stream';
import { VconsoleError } from '../../errors.js';
import { NOVA_REFUSAL_WINDOW_MS, NOVA_REPLAY_LIMIT_BYTES } from './limits.js';
import type { ConsoleUrlGrant } from './shared-console-url.js';
import type { ConsoleType } from '../types.js';
import type { ProxyScheme } from '../dial/websocket-scheme.js';
import { untilAborted } from '../../abort-race.js';

/**
 * Nova's console proxies accept the websocket first and check the token after: a refused
 * serial or SPICE console (whose client speaks first) is an upgrade that succeeded and then
 * closes with no byte. This stream stands for such a console from the upgrade on: when the
 * console closes within NOVA_REFUSAL_WINDOW_MS without a byte from the VM, it dials once
 * more (the caller asks Nova for a fresh console) and replays what the client had sent, so
 * the client never sees the refusal. Once the VM has spoken it is a plain pass-through.
 */

/** Console URLs for one connection: the first to try, and a fresh one from Nova (asked for at most once). */
export interface ConsoleUrls {
  first(): Promise<string>;
  fresh(): Promise<string>;
}

/** A fresh console's token refused, or its console closed before a byte: the hint is true to Nova. */
export const FRESH_REFUSED_HINT =
  "Nova had just issued that console: check that the console proxy reads the same database as nova-compute, that their clocks agree ([consoleauth] token_ttl), and that the VM's console port answers";

/** Where nova.conf names each console's proxy, for the hint when Nova's URL names the wrong scheme. */
const BASE_URL_SETTING: Record<ConsoleType, string> = {
  vnc: '[vnc] novncproxy_base_url',
  serial: '[serial_console] base_url',
  spice: '[spice] html5proxy_base_url',
  rdp: '[rdp] html5_proxy_base_url',
  mks: '[mks] mksproxy_base_url',
};

export function schemeHintFor(type: ConsoleType): (speaks: ProxyScheme) => string {
  return (speaks) =>
    `Nova's console URL names the wrong scheme: ${BASE_URL_SETTING[type]} in the compute hosts' nova.conf must say ${speaks === 'tls' ? 'https:// (wss:// for serial)' : 'http:// (ws:// for serial)'}`;
}

/** The shared URL once Nova gave it, unless this connection's own signal gives up first. */
export function whileWanted(grant: ConsoleUrlGrant, signal: AbortSignal): Promise<string> {
  return untilAborted(grant.url, signal, () => new VconsoleError('cancelled'));
}

interface RefusalRetryOptions {
  /** A fresh console: called at most once. */
  redial(): Promise<Duplex>;
  /** What the client is told when the fresh console closes the same way. */
  refused(): Error;
  /** The dial used up the one fresh console already: a refusal now is reported at once. */
  alreadyRetried?: boolean;
  windowMs?: number;
  now?: () => number;
}

export function retryIfRefused(first: Duplex, options: RefusalRetryOptions): Duplex {
  return new RefusalRetryStream(first, options);
}

class RefusalRetryStream extends Duplex {
  private upstream!: Duplex;
  private openedAt = 0;
  /** The VM said something: no retry any more, nothing kept. */
  private answered = false;
  private retried = false;
  /** What the client sent before the VM answered, to replay to a fresh console. */
  private sent: Buffer[] = [];
  private sentBytes = 0;
  private redialing = false;
  /** The current console's readable side ended: its close or error is still to come. */
  private upstreamEnded = false;
  private heldWrite?: () => void;
  private heldFinal?: () => void;
  private readonly detachers: (() => void)[] = [];
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(
    first: Duplex,
    private readonly options: RefusalRetryOptions,
  ) {
    super();
    this.windowMs = options.windowMs ?? NOVA_REFUSAL_WINDOW_MS;
    this.now = options.now ?? Date.now;
    this.retried = options.alreadyRetried ?? false;
    this.attach(first);
  }

  private attach(upstream: Duplex): void {
    this.upstream = upstream;
    this.upstreamEnded = false;
    this.openedAt = this.now();
    const onData = (chunk: Buffer) => {
      if (!this.answered) {
        this.answered = true;
        this.sent = [];
      }
      if (!this.push(chunk)) upstream.pause();
    };
    const onEnd = () => this.upstreamGone(undefined, true);
    const onClose = () => this.upstreamGone();
    const onError = (err: Error) => this.upstreamGone(err);
    upstream.on('data', onData);
    upstream.on('end', onEnd);
    upstream.on('close', onClose);
    upstream.on('error', onError);
    this.detachers.push(() => {
      upstream.off('data', onData);
      upstream.off('end', onEnd);
      upstream.off('close', onClose);
      upstream.off('error', onError);
    });
  }

  private detach(): void {
    for (const detach of this.detachers.splice(0)) detach();
    this.upstream.on('error', () => undefined);
    this.upstream.destroy();
  }

  /**
   * The console ended, closed or failed: a refusal is dialled again once, anything else passed
   * on. An end is only the readable side: how the console ended (a websocket's close reason)
   * comes after it, and this stream closes with that, once its reader has had the last bytes.
   */
  private upstreamGone(err?: Error, ended = false): void {
    if (this.destroyed || this.redialing) return;
    const silent = !this.answered && this.now() - this.openedAt < this.windowMs;
    if (silent && !this.retried && this.sentBytes <= NOVA_REPLAY_LIMIT_BYTES) return this.retry();
    if (silent) {
      this.detach();
      return void this.destroy(this.options.refused());
    }
    const endedBefore = this.upstreamEnded;
    this.push(null);
    if (ended) return void (this.upstreamEnded = true);
    this.detach();
    if (err && !endedBefore) return void this.destroy(err);
    if (this.readableEnded) return void this.destroy(err);
    this.once('end', () => this.destroy(err));
  }

  private retry(): void {
    this.retried = true;
    this.redialing = true;
    this.detach();
    this.options.redial().then(
      (upstream) => {
        if (this.destroyed) {
          upstream.on('error', () => undefined);
          upstream.destroy();
          return;
        }
        this.redialing = false;
        this.attach(upstream);
        for (const chunk of this.sent) upstream.write(chunk);
        const held = this.heldWrite;
        this.heldWrite = undefined;
        held?.();
        const final = this.heldFinal;
        this.heldFinal = undefined;
        final?.();
      },
      (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  }

  override _read(): void {
    if (!this.redialing) this.upstream.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // Replayed with what came before it once the fresh console is there (one write at a time waits here).
    if (this.redialing) {
      this.sent.push(chunk);
      this.heldWrite = () => callback();
      return;
    }
    if (!this.answered && !this.retried && this.now() - this.openedAt < this.windowMs) {
      this.sentBytes += chunk.length;
      if (this.sentBytes <= NOVA_REPLAY_LIMIT_BYTES) this.sent.push(chunk);
    } else if (this.sent.length > 0) {
      this.sent = [];
    }
    // A console that fails says so with its own error (upstreamGone), and one that closes
    // while refusing must not fail the write of a chunk kept for the fresh console.
    this.upstream.write(chunk, () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.redialing) return void (this.heldFinal = () => this.upstream.end(() => callback()));
    this.upstream.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.redialing) this.detach();
    this.heldWrite = undefined;
    this.heldFinal = undefined;
    callback(error);
  }
}
