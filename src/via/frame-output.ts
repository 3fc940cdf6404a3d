// The via connection's way out: frames written to one byte stream as fast as it takes them, and
// the data of the streams with something to send taking turns, a frame each, so one busy console
// cannot hold the others back nor make anything queue beyond the pipe's own buffer.
import type { Writable } from 'node:stream';
import { FrameType, encodeFrame } from './frames.js';
import type { MuxStream } from './mux-stream.js';

export class FrameOutput {
  /** Streams with something to send, in turn. */
  private readonly ready: MuxStream[] = [];
  private blocked = false;
  private pumping = false;
  private stopped = false;

  constructor(private readonly output: Writable) {}

  /** Writes a frame now; once the pipe is full, the streams' data waits for it to drain. */
  send(frame: Buffer): void {
    if (this.stopped) return;
    if (this.output.write(frame) || this.blocked) {
      return;
    }
    this.blocked = true;
    this.output.once('drain', () => {
      this.blocked = false;
      this.pump();
    });
  }

  /** The stream has data to send: it takes its turn. */
  wantsToSend(stream: MuxStream): void {
    if (!this.ready.includes(stream)) this.ready.push(stream);
    this.pump();
  }

  /** The stream has ended: it takes no more turns. */
  drop(stream: MuxStream): void {
    const at = this.ready.indexOf(stream);
    if (at >= 0) this.ready.splice(at, 1);
  }

  /** The connection has ended: nothing more is written. */
  stop(): void {
    this.stopped = true;
    this.ready.length = 0;
  }

  /** Sends data of the ready streams, one frame each in turn, while the pipe takes it. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.blocked && !this.stopped && this.ready.length > 0) {
        const stream = this.ready.shift() as MuxStream;
        const piece = stream.takeChunk();
        if (piece) this.send(encodeFrame(FrameType.data, stream.id, piece));
        if (stream.canSend && !this.ready.includes(stream)) this.ready.push(stream);
      }
    } finally {
      this.pumping = false;
    }
  }
}
