/**
 * Splits the bytes a websocket server sends (RFC 6455 frames, unmasked) into what a byte relay
 * needs: the payload of every data frame, as slices of the chunks it came in (no copy, no new
 * buffer), and every other frame as its own bytes for the websocket library to handle.
 *
 * Why: ws's receiver gathers each message into a buffer of its own; a console's 32 KiB frames
 * span two or three TLS records, so every frame was one more allocation and copy, and the
 * memory outside the JavaScript heap that this adds up to set off a full garbage collection
 * every ~64 MiB relayed (docs/PERF-DATAPATH.md). A relay has no use for message boundaries.
 *
 * Control frames (close, ping, pong) are handed over whole, in order; so is everything from the
 * first frame this splitter does not take as plain data (masked, reserved bits, unknown opcode,
 * a fragment out of order, an oversized control frame): from there on every byte goes to the
 * library, whose own checks report the fault as they always did. After a close frame every
 * byte goes there too (the library ignores what follows a close).
 */
interface FrameSink {
  /** The payload bytes of a data frame (text, binary or continuation), in order. */
  payload(bytes: Buffer): void;
  /** A whole frame that is not data, or any bytes once the splitter has handed over. */
  other(bytes: Buffer): void;
}

/** The longest header: 2 bytes, 8 of extended length (a server's frames carry no mask). */
const MAX_HEADER_BYTES = 10;
const MAX_CONTROL_PAYLOAD = 125;
const CLOSE = 0x8;

export class ServerFrameSplitter {
  private readonly sink: FrameSink;
  /** Header bytes of the frame being read, gathered across chunks. */
  private readonly header = Buffer.alloc(MAX_HEADER_BYTES);
  private headerBytes = 0;
  /** Payload bytes of the current data frame still to come. */
  private dataLeft = 0;
  /** A control frame being gathered (rare and at most 127 bytes: a copy is fine). */
  private control: Buffer[] = [];
  private controlLeft = 0;
  /** A fragmented message has begun and its final frame has not come yet. */
  private fragmented = false;
  /** Everything from here on goes to `other`. */
  private handedOver = false;
  /** The control frame being gathered is a close: once it is whole, everything after goes to `other`. */
  private closing = false;

  constructor(sink: FrameSink) {
    this.sink = sink;
  }

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.handedOver) {
        this.sink.other(at === 0 ? chunk : chunk.subarray(at));
        return;
      }
      if (this.dataLeft > 0) {
        const n = Math.min(this.dataLeft, chunk.length - at);
        this.sink.payload(n === chunk.length ? chunk : chunk.subarray(at, at + n));
        this.dataLeft -= n;
        at += n;
      } else if (this.controlLeft > 0) {
        const n = Math.min(this.controlLeft, chunk.length - at);
        this.control.push(chunk.subarray(at, at + n));
        this.controlLeft -= n;
        at += n;
        if (this.controlLeft === 0) this.endControl();
      } else {
        at = this.readHeader(chunk, at);
      }
    }
  }

  /** Gathers header bytes from `chunk` at `at`; acts on a whole header. Returns where it stopped. */
  private readHeader(chunk: Buffer, at: number): number {
    const { header } = this;
    while (at < chunk.length) {
      header[this.headerBytes++] = chunk[at++];
      const needed = this.headerLength();
      if (needed !== undefined && this.headerBytes === needed) {
        this.startFrame(needed);
        return at;
      }
    }
    return at;
  }

  /** The header's whole length once its first two bytes are in. */
  private headerLength(): number | undefined {
    if (this.headerBytes < 2) return undefined;
    const length7 = this.header[1] & 0x7f;
    const extended = length7 === 126 ? 2 : length7 === 127 ? 8 : 0;
    // A masked frame's header is longer; it is handed over at 2 bytes, before its length matters.
    return this.header[1] & 0x80 ? 2 : 2 + extended;
  }

  private startFrame(headerLength: number): void {
    const { header } = this;
    const fin = (header[0] & 0x80) !== 0;
    const reserved = header[0] & 0x70;
    const opcode = header[0] & 0x0f;
    const masked = (header[1] & 0x80) !== 0;
    const length = this.payloadLength(headerLength);
    const isControl = opcode >= 0x8;
    const dataInOrder = opcode === 0 ? this.fragmented : opcode === 1 || opcode === 2 ? !this.fragmented : false;
    const fine =
      !masked &&
      reserved === 0 &&
      length !== undefined &&
      (isControl ? (opcode === 0x8 || opcode === 0x9 || opcode === 0xa) && fin && length <= MAX_CONTROL_PAYLOAD : dataInOrder);
    const frameHeader = Buffer.from(header.subarray(0, headerLength));
    this.headerBytes = 0;
    if (!fine) {
      this.handOver(frameHeader);
      return;
    }
    if (isControl) {
      this.closing = opcode === CLOSE;
      this.control = [frameHeader];
      this.controlLeft = length;
      if (length === 0) this.endControl();
      return;
    }
    this.fragmented = !fin;
    this.dataLeft = length;
  }

  private endControl(): void {
    const frame = this.control.length === 1 ? this.control[0] : Buffer.concat(this.control);
    this.control = [];
    if (this.closing) this.handedOver = true;
    this.sink.other(frame);
  }

  /** The payload length, or undefined when it cannot be one (over 2^53 - 1, as ws checks). */
  private payloadLength(headerLength: number): number | undefined {
    const length7 = this.header[1] & 0x7f;
    if (headerLength === 2) return length7 < 126 ? length7 : undefined;
    if (headerLength === 4) return this.header.readUInt16BE(2);
    const high = this.header.readUInt32BE(2);
    if (high > 0x1fffff) return undefined;
    return high * 2 ** 32 + this.header.readUInt32BE(6);
  }

  private handOver(bytes: Buffer): void {
    this.handedOver = true;
    this.sink.other(bytes);
  }
}
