import { EventEmitter } from 'node:events';
import { VconsoleError } from '../errors.js';
import type { AttachableLine } from '../terminal/attach.js';

/** An RFB server speaks first with exactly this: `RFB 003.008\n` (12 bytes). */
const RFB_GREETING = /^RFB \d{3}\.\d{3}\n$/;
const RFB_GREETING_BYTES = 12;
/** Bytes held while they could still be a greeting are let through after this at most (a lone `R` echoed). */
const HOLD_MAX_MS = 300;

/** Could `held` (fewer than 12 bytes) still grow into an RFB version line? */
function couldBeGreeting(held: Buffer): boolean {
  const template = 'RFB 000.000\n';
  for (let i = 0; i < held.length; i++) {
    const byte = String.fromCharCode(held[i]);
    const want = template[i];
    if (want === '0' ? !/\d/.test(byte) : byte !== want) return false;
  }
  return true;
}

/** The error for a bare socket target that answered as a VNC server. */
export function screenNotSerialError(input: string, version: string): VconsoleError {
  return new VconsoleError(`it is a VNC screen (it greeted with ${version}), not a serial console`, {
    hint: `open it with vconsole open ${input}, or name it ${input}#vnc`,
  });
}

/**
 * The line as it looks to a terminal, with its very first bytes checked: when they are exactly
 * an RFB version line (the peer is a VNC server, which speaks first), they are not shown and
 * the line ends with `screenError`. Anything else passes through unchanged (a serial console
 * is silent until typed at, so nothing waits for a first byte).
 */
export function refusingScreenGreeting(line: AttachableLine, screenError: (version: string) => Error): AttachableLine {
  const gated = new EventEmitter<{ output: [Buffer]; end: [Error | undefined] }>();
  let held: Buffer | undefined = Buffer.alloc(0);
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(timer);
    const bytes = held;
    held = undefined;
    if (bytes && bytes.length > 0) gated.emit('output', bytes);
  };
  const onOutput = (chunk: Buffer) => {
    if (!held) return void gated.emit('output', chunk);
    held = Buffer.concat([held, chunk]);
    const first = held.subarray(0, RFB_GREETING_BYTES).toString('latin1');
    if (RFB_GREETING.test(first)) {
      held = undefined;
      clearTimeout(timer);
      return void gated.emit('end', screenError(first.trim()));
    }
    if (held.length >= RFB_GREETING_BYTES || !couldBeGreeting(held)) return release();
    timer ??= setTimeout(release, HOLD_MAX_MS);
  };
  const onEnd = (error?: Error) => {
    release();
    gated.emit('end', error);
  };
  line.on('output', onOutput);
  line.on('end', onEnd);
  return Object.assign(gated, { write: (bytes: Buffer) => line.write(bytes) });
}
