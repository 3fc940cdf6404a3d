import { Framebuffer } from '../rfb/wire/framebuffer.js';
import { RfbConsoleClient } from '../rfb/client/rfb-client.js';
import { steppedConnection } from './replay-player.js';
import type { ParsedRfbRecording } from './rfb-recording.js';

/** One picture of the recorded screen at a moment of the recording. */
interface RecordedFrame {
  /** Milliseconds since the recording began. */
  ms: number;
  framebuffer: Framebuffer;
}

/**
 * Decodes a VNC recording as fast as it goes and hands `onFrame` the screen as it was every
 * `everyMs` of recording time (at everyMs, 2 x everyMs, ... to its end), and once at the end,
 * from the console's first picture on: before it the screen holds nothing the console drew (how
 * long that takes is the machine's, not the VM's). The framebuffer is lent for the call: copy or
 * encode it before returning.
 */
export async function recordedFrames(
  recording: ParsedRfbRecording,
  everyMs: number,
  onFrame: (frame: RecordedFrame) => Promise<void> | void,
): Promise<number> {
  const framebuffer = new Framebuffer(0, 0);
  let nextAt = everyMs;
  let lastMs = 0;
  let count = 0;
  // The writes a resize makes (a new, blank picture): any beyond them is the console drawing.
  let blankWrites = framebuffer.writeCount;
  framebuffer.on('resize', () => (blankWrites = framebuffer.writeCount));
  const frame = async (ms: number) => {
    if (framebuffer.width === 0 || framebuffer.height === 0 || framebuffer.writeCount === blankWrites) return;
    await onFrame({ ms, framebuffer });
    count++;
  };
  for (const connection of recording.connections) {
    const feed = steppedConnection();
    const connecting = RfbConsoleClient.connect(feed.stream, framebuffer, { password: 'replay', shared: true });
    let client: RfbConsoleClient | undefined;
    connecting.then(
      (c) => (client = c),
      () => undefined,
    );
    for (const record of connection.records) {
      if (record.kind !== 'S') continue;
      while (record.ms >= nextAt) {
        await frame(nextAt);
        nextAt += everyMs;
      }
      await feed.push(record.data);
      // The client decodes a budget's worth a turn: the frames after wait until all is drawn.
      await client?.idle();
      lastMs = record.ms;
    }
    feed.end();
    await connecting.catch(() => undefined);
    client?.close();
  }
  // The screen stays as it was after the console's last bytes: the intervals go on to the end.
  const endMs = Math.max(lastMs, recording.durationMs);
  for (; nextAt <= endMs; nextAt += everyMs) await frame(nextAt);
  // And the screen at the very end, unless the last interval's picture showed that moment.
  if (count === 0 || nextAt - everyMs < endMs) await frame(endMs);
  return count;
}
