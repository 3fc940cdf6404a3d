// The via protocol's framing: what goes over the ssh process's stdio between this vconsole and
// the agent on the bastion. One frame is a 9-byte header (type, stream, length) and a payload
// whose size the type bounds, so a peer can make the reader hold one bounded frame at most.

/** What a frame is; the numbers are the wire's and never change within a protocol version. */
export const FrameType = {
  /** Both ways, first: `{ protocol, version }`. */
  hello: 1,
  /** Near to far: `{ op, ... }`, stream = the request's id. */
  request: 2,
  /** Far to near: `{ ok, result }` or `{ ok: false, error }`, stream = the request's id. */
  reply: 3,
  /** Near to far: open stream N to a console, `{ handle, preserveSession, replay }`. */
  open: 4,
  /** Far to near: stream N is dialled; `{ consolePassword }` when the console wants one of this dial's own (else no body). */
  opened: 5,
  /** Either way: bytes of stream N, at most MAX_DATA_BYTES, never beyond the window granted. */
  data: 6,
  /** Either way: the receiver of stream N took 4 bytes' worth (u32) more; the sender may send that much more. */
  credit: 7,
  /** Either way: stream N is over, `{ error? }`. */
  close: 8,
  /** Far to near: a line worth logging about stream N, `{ level, message }`. */
  log: 9,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const HEADER_BYTES = 9;
/** A data frame's payload at most: small enough that streams take turns often. */
export const MAX_DATA_BYTES = 32 * 1024;
/** A control frame's payload at most (a listing of many VMs fits). */
export const MAX_CONTROL_BYTES = 1024 * 1024;

export interface Frame {
  type: FrameType;
  stream: number;
  payload: Buffer;
}

/** A frame no conforming peer sends: the connection cannot be trusted past it. */
export class ViaProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ViaProtocolError';
  }
}

const KNOWN_TYPES = new Set<number>(Object.values(FrameType));

/** The largest payload a frame of this type may carry. */
function maxPayload(type: number): number {
  return type === FrameType.data ? MAX_DATA_BYTES : type === FrameType.credit ? 4 : MAX_CONTROL_BYTES;
}

/** One frame as bytes. */
export function encodeFrame(type: FrameType, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  if (payload.length > maxPayload(type)) throw new ViaProtocolError(`a type ${type} frame of ${payload.length} bytes is over its limit`);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(stream >>> 0, 1);
  header.writeUInt32BE(payload.length, 5);
  return Buffer.concat([header, payload]);
}

/** A control frame with a JSON body. */
export function encodeJsonFrame(type: FrameType, stream: number, body: unknown): Buffer {
  return encodeFrame(type, stream, Buffer.from(JSON.stringify(body), 'utf8'));
}

/** The JSON body of a control frame, or a ViaProtocolError. */
export function jsonBody(frame: Frame): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(frame.payload.toString('utf8'));
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new ViaProtocolError(`a type ${frame.type} frame's body is not a JSON object`);
}

/**
 * Splits a byte stream into frames. It holds at most one frame's bytes: a header announcing a
 * payload over its type's limit, or an unknown type, is a ViaProtocolError before anything of it
 * is buffered.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** The whole frames the bytes complete, in order. */
  push(bytes: Buffer): Frame[] {
    this.chunks.push(bytes);
    this.buffered += bytes.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < HEADER_BYTES) return frames;
      const head = this.peek(HEADER_BYTES);
      const type = head.readUInt8(0);
      const length = head.readUInt32BE(5);
      if (!KNOWN_TYPES.has(type)) throw new ViaProtocolError(`unknown frame type ${type}`);
      if (length > maxPayload(type))
        throw new ViaProtocolError(`a type ${type} frame announces ${length} bytes, over its limit of ${maxPayload(type)}`);
      if (this.buffered < HEADER_BYTES + length) return frames;
      const whole = this.take(HEADER_BYTES + length);
      frames.push({ type: type as FrameType, stream: head.readUInt32BE(1), payload: whole.subarray(HEADER_BYTES) });
    }
  }

  private peek(count: number): Buffer {
    if (this.chunks[0].length < count) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, count);
  }

  private take(count: number): Buffer {
    if (this.chunks[0].length < count) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    const taken = Buffer.from(first.subarray(0, count));
    if (first.length === count) this.chunks.shift();
    else this.chunks[0] = first.subarray(count);
    this.buffered -= count;
    return taken;
  }
}
