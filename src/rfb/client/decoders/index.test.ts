// The registry is what the client asks a console for: every decoder listed, in its order of
// preference (QEMU uses the first it knows), then the pseudo-encodings; nothing else.
import { afterEach, describe, expect, it } from 'vitest';
import { serveHandshake, startScriptedServer } from '../../../../test/support/fake-rfb-server.js';
import { Framebuffer } from '../../wire/framebuffer.js';
import { DEFAULT_ENCODINGS, RfbConsoleClient } from '../rfb-client.js';
import { DECODERS } from './index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the decoder registry', () => {
  it('gives each encoding one name and one RFB number', () => {
    expect(new Set(DECODERS.map((kind) => kind.name)).size).toBe(DECODERS.length);
    expect(new Set(DECODERS.map((kind) => kind.encoding)).size).toBe(DECODERS.length);
  });

  it('is what the client asks for by default: ZRLE first, Raw last, then the pseudo-encodings', async () => {
    let asked: number[] | undefined;
    const server = await startScriptedServer(async (peer) => {
      asked = await serveHandshake(peer, 8, 8);
    });
    cleanups.push(() => server.close());
    const client = await RfbConsoleClient.connect(server.dial(), new Framebuffer(1, 1));
    cleanups.push(() => client.close());
    await expect.poll(() => asked, { timeout: 10_000 }).toBeDefined();
    expect(DEFAULT_ENCODINGS).toEqual(['zrle', 'hextile', 'tight', 'zlib', 'copyrect', 'raw']);
    expect(asked).toEqual([16, 5, 7, 6, 1, 0, -239, -223, -308, -224, -258]);
  });
});
