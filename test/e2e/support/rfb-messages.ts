// How the RFB sniffer (rfb-sniffer.ts) steps over each message it does not need to read whole:
// one table entry a message type or pseudo-encoding, its length read from its first bytes.

/** What one RFB session through the sniffer showed: what the client asked for and what the server sent. */
export interface SniffedSession {
  /** The client's last SetEncodings list, in its order of preference. */
  asked: number[];
  /** Bits per pixel and true-colour flag of the client's last SetPixelFormat (none: the server's own). */
  pixelFormat?: { bitsPerPixel: number; trueColour: boolean };
  /** The encoding of the first rectangle of pixels (not a pseudo-encoding) the server sent. */
  firstPixelEncoding?: number;
  /** Pseudo-encodings the server sent before or with that rectangle. */
  pseudoSent: number[];
  /** The security type the session used (1 none, 2 VNC authentication, ...). */
  securityType?: number;
  /** The server's SecurityResult: true accepted, false refused; undefined before (or without) one. */
  authenticated?: boolean;
  /** Keys the client pressed: KeyEvents and QEMU extended key events. */
  keyEvents: number;
}

/** Reads bytes as they arrive; `need(n)` says whether n are there, `take(n)` removes them. */
export class Bytes {
  private buffer: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
  }
  has(n: number): boolean {
    return this.buffer.length >= n;
  }
  peek(n: number): Buffer {
    return this.buffer.subarray(0, n);
  }
  take(n: number): Buffer {
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }
}

/** A message's whole length, read from its first bytes; undefined until enough have come to tell. */
type Length = (b: Bytes) => number | undefined;

/** Always `n` bytes. */
const fixed =
  (n: number): Length =>
  () =>
    n;

/** A `header` of known size, then `count(header)` items of `unit` bytes. */
const counted =
  (header: number, count: (head: Buffer) => number, unit = 1): Length =>
  (b) =>
    b.has(header) ? header + unit * count(b.peek(header)) : undefined;

/** How to step over one message type, and what the session learns from it. */
interface MessageRule {
  length: Length;
  seen?: (message: Buffer, session: SniffedSession) => void;
}

/** Client-to-server messages by type: RFB's, and the extensions the matrix's clients send. */
export const CLIENT_MESSAGES: Readonly<Record<number, MessageRule>> = {
  0: {
    // SetPixelFormat
    length: fixed(20),
    seen: (m, s) => {
      s.pixelFormat = { bitsPerPixel: m[4], trueColour: m[7] !== 0 };
    },
  },
  2: {
    // SetEncodings
    length: counted(4, (h) => h.readUInt16BE(2), 4),
    seen: (m, s) => {
      s.asked = Array.from({ length: m.readUInt16BE(2) }, (_, i) => m.readInt32BE(4 + 4 * i));
    },
  },
  3: { length: fixed(10) }, // FramebufferUpdateRequest
  4: {
    // KeyEvent, counted when pressed
    length: fixed(8),
    seen: (m, s) => {
      if (m[1] === 1) s.keyEvents++;
    },
  },
  5: { length: fixed(6) }, // PointerEvent
  6: { length: counted(8, (h) => Math.abs(h.readInt32BE(4))) }, // ClientCutText (negative length: extended clipboard)
  150: { length: fixed(10) }, // EnableContinuousUpdates
  248: { length: counted(9, (h) => h[8]) }, // ClientFence
  251: { length: counted(8, (h) => h[6], 16) }, // SetDesktopSize
  // QEMU's messages: extended key event (subtype 0) is 12 bytes; audio (1) 4 or 10.
  255: {
    length: (b) => (!b.has(4) ? undefined : b.peek(2)[1] === 0 ? 12 : b.peek(4).readUInt16BE(2) === 2 ? 10 : 4),
    // A client that was offered QEMU's extended key events sends its keys so, never as KeyEvents.
    seen: (m, s) => {
      if (m[1] === 0 && m.readUInt16BE(2) !== 0) s.keyEvents++;
    },
  },
};

/** Server-to-client messages by type, but FramebufferUpdate (0), whose rectangles are followed one by one. */
export const SERVER_MESSAGES: Readonly<Record<number, MessageRule>> = {
  1: { length: counted(6, (h) => h.readUInt16BE(4), 6) }, // SetColourMapEntries
  2: { length: fixed(1) }, // Bell
  3: { length: counted(8, (h) => Math.abs(h.readInt32BE(4))) }, // ServerCutText (negative length: extended clipboard)
  150: { length: fixed(1) }, // EndOfContinuousUpdates
  248: { length: counted(9, (h) => h[8]) }, // ServerFence
};

/** A pseudo-rectangle's whole length (its 12-byte header included), from the header and the pixel size. */
type RectLength = (b: Bytes, rect: { width: number; height: number; bytesPerPixel: number }) => number | undefined;
const RECT_HEADER = 12;
const payload =
  (n: number): RectLength =>
  () =>
    RECT_HEADER + n;

/** The pseudo-encodings whose rectangles can be stepped over, by number (names: ENCODING_NAMES). */
export const PSEUDO_RECTS: Readonly<Record<number, RectLength>> = {
  [-223]: payload(0), // desktop-size
  [-224]: payload(0), // last-rect
  [-232]: payload(0), // pointer-pos
  [-257]: payload(0), // qemu-pointer-motion
  [-258]: payload(0), // qemu-ext-key
  [-259]: payload(0), // qemu-audio
  [-261]: payload(1), // qemu-led
  // cursor: the pixels, then a bitmask of one bit a pixel, rows padded to a byte
  [-239]: (_b, r) => RECT_HEADER + r.width * r.height * r.bytesPerPixel + Math.ceil(r.width / 8) * r.height,
  [-314]: (_b, r) => RECT_HEADER + 4 + r.width * r.height * 4, // cursor-with-alpha: an encoding, then RGBA pixels
  [-308]: counted(RECT_HEADER + 4, (h) => h[RECT_HEADER], 16), // ext-desktop-size: a screen count, 16 bytes a screen
  [-307]: counted(RECT_HEADER + 4, (h) => h.readUInt32BE(RECT_HEADER)), // desktop-name: a length, then the name
};

/**
 * Steps over the next message in `b` by `rules`: 'taken' when one was, 'wait' until all of it
 * has come, 'unknown' for a type none of them knows (whose length cannot be told).
 */
export function stepMessage(b: Bytes, rules: Readonly<Record<number, MessageRule>>, session: SniffedSession): 'taken' | 'wait' | 'unknown' {
  if (!b.has(1)) return 'wait';
  const rule = rules[b.peek(1)[0]];
  if (rule === undefined) return 'unknown';
  const length = rule.length(b);
  if (length === undefined || !b.has(length)) return 'wait';
  // Taken first: an optional call would not evaluate its argument when there is no `seen`.
  const message = b.take(length);
  rule.seen?.(message, session);
  return 'taken';
}
