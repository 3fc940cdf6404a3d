import type { Duplex } from 'node:stream';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { RfbConsoleClient, type RfbConsoleClientOptions } from '../../src/rfb/client/rfb-client.js';

/**
 * A VNC client that keeps its picture current, as a viewer does: connects over `stream` and
 * asks for update after update until it is closed (added to `cleanup`: a list of steps, or the
 * `cleanup` fixture of test/support/fixtures.ts).
 */
export async function liveScreen(
  stream: Duplex,
  options: RfbConsoleClientOptions,
  cleanup: (() => unknown)[] | { add(step: () => unknown): void },
) {
  const later = (step: () => unknown) => (Array.isArray(cleanup) ? cleanup.push(step) : cleanup.add(step));
  later(() => stream.destroy());
  const framebuffer = new Framebuffer(0, 0);
  const client = await RfbConsoleClient.connect(stream, framebuffer, options);
  let closed = false;
  client.on('close', () => (closed = true));
  later(() => client.close());
  void (async () => {
    try {
      while (!closed) await client.nextUpdate();
    } catch {
      // closed by the test
    }
  })();
  return { client, framebuffer, closed: () => closed };
}

/** The 0xRRGGBB colour at (x, y), or -1 outside the picture. */
export const pixelAt = (fb: Framebuffer, x: number, y: number) =>
  fb.width > x && fb.height > y ? fb.pixels.readUInt32LE((y * fb.width + x) * 4) & 0xffffff : -1;
