/**
 * What the decoder tests (src/rfb/client/decoders/*.test.ts) share: a scripted server that
 * sends encodings laid out by hand as RFC 6143 (and the Tight/ZRLE specs) describe them, to an
 * RfbConsoleClient decoding into a Framebuffer, under each of two decoding budgets (all at once, and
 * one row or tile a turn: a rectangle cut across many turns, as a flood is, draws the same
 * picture); and the pixels and pictures to compare with.
 */
import { picture, serveHandshake, startScriptedServer, type RfbPeer } from './fake-rfb-server.js';
import type { DecodeBudgetOptions } from '../../src/rfb/client/decode-budget.js';
import { RfbConsoleClient } from '../../src/rfb/client/rfb-client.js';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import type { Rect } from '../../src/rfb/wire/geometry.js';

/** The budgets every decoder test runs under, for describe.each. */
export const DECODING_BUDGETS: Array<[string, DecodeBudgetOptions | undefined]> = [
  ['in one go', undefined],
  ['one row or tile a turn', { perTurn: 1 }],
];

const cleanups: Array<() => unknown> = [];

/** Ends the sessions a test opened: the test file's afterEach. */
export async function closeDecodingSessions(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** Serves a `width`x`height` screen and, after the handshake, `updates` one per update request. */
export async function decodingSession(
  budget: DecodeBudgetOptions | undefined,
  width: number,
  height: number,
  updates: Buffer[],
  options: { slowly?: boolean } = {},
) {
  const requests: Buffer[] = [];
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, width, height);
    for (const bytes of updates) {
      if (options.slowly) {
        // A few bytes at a time: every message and rectangle is split across chunks.
        for (let at = 0; at < bytes.length; at += 5) {
          peer.write(bytes.subarray(at, at + 5));
          await new Promise((resolve) => setImmediate(resolve));
        }
      } else {
        peer.write(bytes);
      }
      requests.push(await peer.read(10));
    }
  });
  cleanups.push(() => server.close());
  const fb = new Framebuffer(1, 1);
  const client = await RfbConsoleClient.connect(server.dial(), fb, { budget });
  cleanups.push(() => client.close());
  let error: Error | undefined;
  client.on('close', (err) => (error = err));
  return { fb, client, requests, error: () => error };
}

/** A B G R X pixel. */
export function px(rgb: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(rgb);
  return out;
}

/** A picture with rectangles painted into it, as the expected result. */
export class Canvas {
  readonly pixels: Buffer;
  constructor(
    readonly w: number,
    readonly h: number,
    background = 0,
  ) {
    this.pixels = picture(w, h, () => background);
  }
  paint(r: Rect, rgb: number | ((x: number, y: number) => number)): this {
    for (let y = r.y; y < r.y + r.h; y++)
      for (let x = r.x; x < r.x + r.w; x++)
        this.pixels.writeUInt32LE((typeof rgb === 'number' ? rgb : rgb(x - r.x, y - r.y)) & 0xffffff, (y * this.w + x) * 4);
    return this;
  }
}

export const RED = 0xff0000;
export const GREEN = 0x00ff00;
export const BLUE = 0x0000ff;
export const WHITE = 0xffffff;
export const ramp = (x: number, y: number) => ((x * 37) << 16) | ((y * 11) << 8) | ((x + y) * 5);
