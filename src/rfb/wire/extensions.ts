/**
 * The RFB community extensions both sides of vconsole speak (rfbproto's rfbproto.rst, as QEMU's
 * ui/vnc.c and TigerVNC write them): Fence, ContinuousUpdates, ExtendedDesktopSize and its
 * SetDesktopSize, QEMU's LED state and pointer motion change. Message bytes only; what to do
 * with them is the server's and the client's.
 */
import { RfbProtocolError } from './rfb-wire.js';

export const PSEUDO = {
  desktopSize: -223,
  extendedDesktopSize: -308,
  fence: -312,
  continuousUpdates: -313,
  qemuPointerMotionChange: -257,
  qemuLedState: -261,
  vmwareLedState: -262,
  /** 0xC0A1E5CE as the signed 32-bit number SetEncodings carries. */
  extendedClipboard: 0xc0a1e5ce | 0,
} as const;

/** Message types beyond RFC 6143's (the same number in both directions). */
export const MESSAGE = { continuousUpdates: 150, fence: 248, setDesktopSize: 251 } as const;

const FENCE_BLOCK_BEFORE = 1;
const FENCE_BLOCK_AFTER = 2;
export const FENCE_SYNC_NEXT = 4;
export const FENCE_REQUEST = 0x80000000;
/** The flags a fence answer may carry back: the ones this side understands. */
const FENCE_KNOWN_FLAGS = FENCE_BLOCK_BEFORE | FENCE_BLOCK_AFTER | FENCE_SYNC_NEXT;
/** The largest fence payload the extension allows. */
const FENCE_MAX_PAYLOAD = 64;

export interface Fence {
  flags: number;
  payload: Buffer;
}

/** Fence (248): 3 padding bytes, flags, a length byte and at most 64 bytes of payload. */
export function encodeFence(flags: number, payload: Buffer): Buffer {
  if (payload.length > FENCE_MAX_PAYLOAD) throw new RfbProtocolError(`fence payload of ${payload.length} bytes (at most 64)`);
  const out = Buffer.alloc(9 + payload.length);
  out.writeUInt8(MESSAGE.fence, 0);
  out.writeUInt32BE(flags >>> 0, 4);
  out.writeUInt8(payload.length, 8);
  payload.copy(out, 9);
  return out;
}

/** A Fence at the start of `at`, with its size; undefined while incomplete; throws past 64 bytes of payload. */
export function parseFence(at: Buffer): { fence: Fence; size: number } | undefined {
  if (at.length < 9) return undefined;
  const length = at[8];
  if (length > FENCE_MAX_PAYLOAD) throw new RfbProtocolError(`fence payload of ${length} bytes (at most 64)`);
  if (at.length < 9 + length) return undefined;
  return { fence: { flags: at.readUInt32BE(4), payload: Buffer.from(at.subarray(9, 9 + length)) }, size: 9 + length };
}

/** The answer to a fence request: the same payload, the flags this side knows, no Request bit. */
export function fenceAnswer(request: Fence): Buffer {
  return encodeFence(request.flags & FENCE_KNOWN_FLAGS, request.payload);
}

/** EndOfContinuousUpdates, the server's one-byte message 150. */
export const END_OF_CONTINUOUS_UPDATES = Buffer.from([MESSAGE.continuousUpdates]);

interface ContinuousUpdatesRequest {
  enable: boolean;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** EnableContinuousUpdates (client message 150, 10 bytes). */
export function parseEnableContinuousUpdates(at: Buffer): ContinuousUpdatesRequest | undefined {
  if (at.length < 10) return undefined;
  return { enable: at[1] !== 0, x: at.readUInt16BE(2), y: at.readUInt16BE(4), w: at.readUInt16BE(6), h: at.readUInt16BE(8) };
}

/** ExtendedDesktopSize's x: why the size is sent. */
export const RESIZE_REASON = { server: 0, thisClient: 1, otherClient: 2 } as const;
/** ExtendedDesktopSize's y: the answer to a SetDesktopSize (QEMU adds 4, "forwarded to the guest"). */
export const RESIZE_STATUS = { ok: 0, prohibited: 1, outOfResources: 2, invalidLayout: 3 } as const;

/** The largest screen list a SetDesktopSize may carry (the count is one byte). */
const SCREEN_BYTES = 16;

export interface DesktopSizeRequest {
  width: number;
  height: number;
  /** The screens as sent: 16 bytes each (id, x, y, width, height, flags). */
  screens: Buffer;
}

/** SetDesktopSize (client message 251): padding, width, height, screen count, padding, screens. */
export function parseSetDesktopSize(at: Buffer): { request: DesktopSizeRequest; size: number } | undefined {
  if (at.length < 8) return undefined;
  const size = 8 + at[6] * SCREEN_BYTES;
  if (at.length < size) return undefined;
  const request = { width: at.readUInt16BE(2), height: at.readUInt16BE(4), screens: Buffer.from(at.subarray(8, size)) };
  return { request, size };
}

export function encodeSetDesktopSize(request: DesktopSizeRequest): Buffer {
  const count = Math.floor(request.screens.length / SCREEN_BYTES);
  const out = Buffer.alloc(8 + count * SCREEN_BYTES);
  out.writeUInt8(MESSAGE.setDesktopSize, 0);
  out.writeUInt16BE(request.width, 2);
  out.writeUInt16BE(request.height, 4);
  out.writeUInt8(count, 6);
  request.screens.copy(out, 8, 0, count * SCREEN_BYTES);
  return out;
}

/** One screen covering the whole desktop, as a SetDesktopSize or ExtendedDesktopSize lists it. */
export function singleScreen(width: number, height: number): Buffer {
  const out = Buffer.alloc(SCREEN_BYTES);
  out.writeUInt16BE(width, 8);
  out.writeUInt16BE(height, 10);
  return out;
}

function rectHeader(x: number, y: number, w: number, h: number, encoding: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(x, 0);
  out.writeUInt16BE(y, 2);
  out.writeUInt16BE(w, 4);
  out.writeUInt16BE(h, 6);
  out.writeInt32BE(encoding, 8);
  return out;
}

/** An ExtendedDesktopSize rectangle (header and body) of one screen: x the reason, y the status. */
export function extendedDesktopSizeRect(reason: number, status: number, width: number, height: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt8(1, 0);
  return Buffer.concat([rectHeader(reason, status, width, height, PSEUDO.extendedDesktopSize), body, singleScreen(width, height)]);
}

/** A FramebufferUpdate of pseudo-rectangles only (each given whole), as QEMU sends LED and size news unasked. */
export function pseudoUpdate(rects: readonly Buffer[]): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(rects.length, 2);
  return Buffer.concat([head, ...rects]);
}

/** QEMU's LED state rectangle: one byte of bits (scroll 1, num 2, caps 4). */
export function ledStateRect(state: number): Buffer {
  return Buffer.concat([rectHeader(0, 0, 0, 0, PSEUDO.qemuLedState), Buffer.from([state & 0xff])]);
}

/** VMware's LED state rectangle: the same bits as QEMU's, in four bytes. */
export function vmwareLedStateRect(state: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt32BE(state & 0xff);
  return Buffer.concat([rectHeader(0, 0, 0, 0, PSEUDO.vmwareLedState), body]);
}

/** QEMU's pointer motion change rectangle: x is 1 for absolute positions, 0 for relative motion. */
export function pointerMotionRect(absolute: boolean): Buffer {
  return rectHeader(absolute ? 1 : 0, 0, 0, 0, PSEUDO.qemuPointerMotionChange);
}
