/**
 * Sending key strokes to a screen at a pace no key is lost at. QEMU hands a VNC client's keys to
 * the guest one event every `key-delay-ms` (10 ms unless its -vnc option says otherwise) from a
 * queue of its own, and drops what overflows it: sent faster than that, keys and the release of
 * a held Shift go missing. So strokes are paced, not characters, a little slower than QEMU, and
 * a modifier held for consecutive characters stays down between them. Measured against QEMU 7.2
 * (TCG) and a Linux guest (test/e2e/type-guest.e2e.test.ts): 1 KB of random printable ASCII
 * arrives exactly at 12 ms a stroke (about 35 characters a second); at 15 ms a character, with
 * Shift pressed and released around each, a third of it was lost.
 */
import type { KeyStroke } from '../keys/typing.js';

/** The pause after each stroke: QEMU's default key-delay-ms (10) and a margin for timers firing early. */
export const STROKE_INTERVAL_MS = 12;

/** What sends one stroke: the RFB client's key or QEMU key event. */
interface KeySink {
  supportsQemuKeys: boolean;
  key(down: boolean, keysym: number): void;
  qemuKey(down: boolean, keysym: number, keycode: number): void;
}

export function sendStroke(sink: KeySink, stroke: KeyStroke): void {
  if (stroke.scancode !== undefined && sink.supportsQemuKeys) sink.qemuKey(stroke.down, stroke.keysym, stroke.scancode);
  else sink.key(stroke.down, stroke.keysym);
}

const sameKey = (a: KeyStroke, b: KeyStroke) => a.keysym === b.keysym && a.scancode === b.scancode;

/**
 * The characters' strokes in one list, a modifier let go at the end of one character and pressed
 * again at the start of the next left down instead (Shift held over `ABC`).
 */
export function joinedStrokes(characters: readonly KeyStroke[][]): KeyStroke[] {
  const joined: KeyStroke[] = [];
  for (const strokes of characters) {
    let from = 0;
    // The previous character let go of what this one presses first: neither is sent.
    while (from < strokes.length && strokes[from].down && strokes[from].modifier) {
      const last = joined.at(-1);
      if (!last?.modifier || last.down || !sameKey(last, strokes[from])) break;
      joined.pop();
      from++;
    }
    joined.push(...strokes.slice(from));
  }
  return joined;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends each character's strokes, pausing `intervalMs` after each stroke. Once `signal` aborts no
 * further stroke is sent: the keys still held down (a Shift over a run of capitals, a key between
 * its press and release) are let go, so the guest is not left with a stuck modifier, and the
 * promise rejects with the signal's reason.
 */
export async function sendPaced(
  sink: KeySink,
  characters: readonly KeyStroke[][],
  intervalMs = STROKE_INTERVAL_MS,
  signal?: AbortSignal,
): Promise<void> {
  const held = new Map<string, KeyStroke>();
  for (const stroke of joinedStrokes(characters)) {
    if (signal?.aborted) {
      for (const down of held.values()) sendStroke(sink, { ...down, down: false });
      signal.throwIfAborted();
    }
    sendStroke(sink, stroke);
    const key = `${stroke.keysym}/${stroke.scancode ?? ''}`;
    if (stroke.down) held.set(key, stroke);
    else held.delete(key);
    await pause(intervalMs);
  }
}
