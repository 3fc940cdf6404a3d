/** The client-to-server messages RfbConsoleClient sends (RFC 6143 7.5, and QEMU's extension). */

export function setEncodingsMessage(encodings: readonly number[]): Buffer {
  const out = Buffer.alloc(4 + encodings.length * 4);
  out.writeUInt8(2, 0);
  out.writeUInt16BE(encodings.length, 2);
  encodings.forEach((encoding, i) => out.writeInt32BE(encoding, 4 + i * 4));
  return out;
}

/** FramebufferUpdateRequest for the whole `width`x`height` screen. */
export function updateRequest(incremental: boolean, width: number, height: number): Buffer {
  const out = Buffer.alloc(10);
  out.writeUInt8(3, 0);
  out.writeUInt8(incremental ? 1 : 0, 1);
  out.writeUInt16BE(width, 6);
  out.writeUInt16BE(height, 8);
  return out;
}

export function keyEvent(down: boolean, keysym: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt8(4, 0);
  out.writeUInt8(down ? 1 : 0, 1);
  out.writeUInt32BE(keysym >>> 0, 4);
  return out;
}

/** QEMU client message (255), sub-type 0: Extended Key Event, with the XT keycode. */
export function qemuKeyEvent(down: boolean, keysym: number, keycode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt8(255, 0);
  out.writeUInt8(0, 1);
  out.writeUInt16BE(down ? 1 : 0, 2);
  out.writeUInt32BE(keysym >>> 0, 4);
  out.writeUInt32BE(keycode >>> 0, 8);
  return out;
}

export function pointerEvent(buttons: number, x: number, y: number): Buffer {
  const out = Buffer.alloc(6);
  out.writeUInt8(5, 0);
  out.writeUInt8(buttons & 0xff, 1);
  out.writeUInt16BE(Math.max(0, Math.min(0xffff, Math.round(x))), 2);
  out.writeUInt16BE(Math.max(0, Math.min(0xffff, Math.round(y))), 4);
  return out;
}

/** ClientCutText: the text as Latin-1, characters outside it as '?'. */
export function clientCutText(text: string): Buffer {
  const latin1 = Buffer.from(text.replace(/[^\u0000-\u00ff]/g, '?'), 'latin1');
  const head = Buffer.alloc(8);
  head.writeUInt8(6, 0);
  head.writeUInt32BE(latin1.length, 4);
  return Buffer.concat([head, latin1]);
}
