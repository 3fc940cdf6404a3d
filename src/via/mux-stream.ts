// One console's bytes inside the via connection: a Duplex whose writes leave only as the peer's
// window allows, and whose reads give the peer back window only as they are taken.
import { Duplex } from 'node:stream';
import { MAX_DATA_BYTES } from './frames.js';

/** The bytes a side may have in flight on one stream before the receiver grants more. */
export const STREAM_WINDOW_BYTES = 256 * 1024;
/** Window is granted back once this much was taken (or the reader emptied its buffer). */
const CREDIT_STEP_BYTES = STREAM_WINDOW_BYTES / 4;

/** What a stream asks of the connection it lives in. */
export interface StreamCarrier {
  /** There is something to send on this stream: the connection calls takeChunk when it is its turn. */
  wantsToSend(stream: MuxStream): void;
  credit(stream: MuxStream, bytes: number): void;
  ended(stream: MuxStream, error?: Error): void;
}

interface PendingWrite {
  chunk: Buffer;
  offset: number;
  done: (error?: Error | null) => void;
}

export class MuxStream extends Duplex {
  /** Bytes the peer still accepts. */
  private sendWindow = STREAM_WINDOW_BYTES;
  private readonly pending: PendingWrite[] = [];
  /** Bytes the peer sent and was not given back as window yet: never above the window. */
  private ungranted = 0;
  private closedByPeer = false;
  private closeSent = false;

  constructor(
    readonly id: number,
    private readonly carrier: StreamCarrier,
  ) {
    super({ allowHalfOpen: false });
  }

  /** Whether a chunk is waiting and the window lets some of it go. */
  get canSend(): boolean {
    return this.pending.length > 0 && this.sendWindow > 0 && !this.destroyed;
  }

  /** The next piece to send (at most MAX_DATA_BYTES, within the window), taken off the queue. */
  takeChunk(): Buffer | undefined {
    const first = this.pending[0];
    if (!first || this.sendWindow <= 0) return undefined;
    const size = Math.min(first.chunk.length - first.offset, this.sendWindow, MAX_DATA_BYTES);
    const piece = first.chunk.subarray(first.offset, first.offset + size);
    first.offset += size;
    this.sendWindow -= size;
    if (first.offset >= first.chunk.length) {
      this.pending.shift();
      first.done();
    }
    return piece;
  }

  /** The peer granted `bytes` more. */
  granted(bytes: number): void {
    this.sendWindow += bytes;
    if (this.canSend) this.carrier.wantsToSend(this);
  }

  /**
   * Bytes from the peer. Returns false when they are beyond the window the peer was given:
   * a peer that does not wait for window is broken or hostile.
   */
  received(bytes: Buffer): boolean {
    if (this.closedByPeer || this.destroyed) return true; // in flight as it closed: dropped
    if (this.ungranted + bytes.length > STREAM_WINDOW_BYTES) return false;
    this.ungranted += bytes.length;
    this.push(bytes);
    return true;
  }

  /** The peer closed the stream: the reader gets an end (or the error), writes stop. */
  peerClosed(error?: Error): void {
    this.closedByPeer = true;
    this.closeSent = true; // the peer's close is the end both ways: none is owed back
    if (error) this.destroy(error);
    else this.push(null); // what is buffered is still read; the end then closes both halves
  }

  override _read(): void {
    // What the reader took since the last grant goes back to the peer as window.
    const taken = this.ungranted - this.readableLength;
    if (taken <= 0) return;
    if (taken >= CREDIT_STEP_BYTES || this.readableLength === 0) {
      this.ungranted -= taken;
      this.carrier.credit(this, taken);
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.closedByPeer) return done();
    this.pending.push({ chunk, offset: 0, done });
    if (this.canSend) this.carrier.wantsToSend(this);
  }

  /** The writer ended (every write sent): the peer is told the stream is over. */
  override _final(done: (error?: Error | null) => void): void {
    if (!this.closeSent) {
      this.closeSent = true;
      this.carrier.ended(this);
    }
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    for (const write of this.pending.splice(0)) write.done(error ?? new Error('stream closed'));
    if (!this.closeSent) {
      this.closeSent = true;
      this.carrier.ended(this, error ?? undefined);
    }
    done(error);
  }
}
