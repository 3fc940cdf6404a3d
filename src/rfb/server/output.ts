import type { Duplex } from 'node:stream';
import { VIEWER_MESSAGE_BACKLOG_BYTES } from '../../limits.js';

/*
 * What goes out to one client of a shared console, bounded whatever the console sends and
 * however slowly the client reads: framebuffer updates are coalesced by the caller (one in
 * flight), messages held behind an update are one of each kind, bells and clipboards are
 * dropped behind a backlog, and a client that takes nothing for a while is given up on.
 */

export type OutboxKind = 'bell' | 'clipboard' | 'colourMap';

export class ClientOutput {
  /** Messages held while an update is in flight: a newer clipboard or colour map replaces the older. */
  private readonly outbox = new Map<OutboxKind, Buffer>();
  /** Armed while the connection holds output it does not take. */
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: Duplex,
    private readonly stallMs: number,
    private readonly onStall: () => void,
  ) {
    stream.on('drain', () => {
      clearTimeout(this.stallTimer);
      this.stallTimer = undefined;
    });
  }

  /** True when the connection already holds more than a bell or a clipboard is worth queueing behind. */
  get behind(): boolean {
    return this.stream.writableLength > VIEWER_MESSAGE_BACKLOG_BYTES;
  }

  /** Writes now, or (`held`: an update is in flight) once release() is called. */
  send(message: Buffer, kind: OutboxKind, held: boolean): void {
    if (!held) {
      this.write(message);
      return;
    }
    this.outbox.delete(kind);
    this.outbox.set(kind, message);
  }

  /** Writes what was held behind the update that just went out. */
  release(): void {
    const queued = [...this.outbox.values()];
    this.outbox.clear();
    for (const message of queued) this.write(message);
  }

  /** Writes, and starts counting the stall when the connection's buffer is full; false then. */
  write(data: Buffer): boolean {
    const room = this.stream.write(data);
    if (!room && !this.stallTimer && !this.stream.destroyed) this.stallTimer = setTimeout(this.onStall, this.stallMs);
    return room;
  }

  close(): void {
    clearTimeout(this.stallTimer);
    this.outbox.clear();
  }
}

/** `ms` as a log line says it. */
export function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
