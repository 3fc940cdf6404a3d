import { afterEach, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { RfbHub } from '../../rfb/hub/hub.js';
import { resolveTarget } from '../../targets/index.js';
import type { Thumbnail } from '../../tui/thumbnails/thumbnail.js';
import { scaleBgrxToRgb } from '../../tui/thumbnails/scale.js';
import { waitFor } from '../../../test/support/wait.js';
import { shareSerial } from '../sharing.js';
import { ThumbnailSampler } from './thumbnails.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A registry whose sessions are closed after the test. */
function registry(): SessionRegistry {
  const sessions = new SessionRegistry();
  cleanup.push(() => sessions.closeAll());
  return sessions;
}

/** Every thumbnail shown, with the time it came. */
function recorder() {
  const shown: { id: number; thumbnail: Thumbnail | undefined; at: number }[] = [];
  const show = (id: number, thumbnail: Thumbnail | undefined) => shown.push({ id, thumbnail, at: performance.now() });
  return { shown, show, of: (id: number) => shown.filter((s) => s.id === id) };
}

function sampler(show: (id: number, thumbnail: Thumbnail | undefined) => void, intervalMs?: number, pictures?: boolean): ThumbnailSampler {
  const thumbnails = new ThumbnailSampler(show, { intervalMs, pictures });
  cleanup.push(() => thumbnails.close());
  return thumbnails;
}

const pixelsOf = (t: Thumbnail | undefined) => (t?.type === 'pixels' ? t : undefined);

describe('ThumbnailSampler', () => {
  it("scales a shared console's framebuffer to the tile, without a connection of its own", async () => {
    const sessions = registry();
    const hub = new RfbHub(resolveTarget('demo:vm-a', {}));
    const session = sessions.add(hub);
    const { show, of } = recorder();
    const thumbnails = sampler(show);
    thumbnails.track(session, hub);
    await session.start({ host: '127.0.0.1', port: 0 });
    thumbnails.setView({ sessionIds: [session.id], columns: 16, rows: 6, pixelWidth: 16, pixelHeight: 12 });
    await waitFor(() => of(session.id).some((s) => pixelsOf(s.thumbnail)), 'a picture');
    const picture = pixelsOf(of(session.id).at(-1)?.thumbnail);
    expect([picture?.width, picture?.height]).toEqual([16, 12]);
    // The hub's one upstream connection is the only client of the demo console; no viewer connected.
    expect(session.snapshot().totalClients).toBe(0);
    const { framebuffer } = hub;
    framebuffer.fill({ x: 0, y: 0, w: framebuffer.width, h: framebuffer.height }, 0xff0000);
    framebuffer.damage({ x: 0, y: 0, w: framebuffer.width, h: framebuffer.height });
    await waitFor(() => pixelsOf(of(session.id).at(-1)?.thumbnail)?.rgb[0] === 255, 'the red screen in the picture');
    const red = pixelsOf(of(session.id).at(-1)?.thumbnail);
    expect(red?.rgb).toEqual(scaleBgrxToRgb(framebuffer.pixels, framebuffer.width, framebuffer.height, 16, 12));
  });

  it('samples a tile at most once per interval however often its screen changes', async () => {
    const sessions = registry();
    const hub = new RfbHub(resolveTarget('demo:vm-a', {}));
    const session = sessions.add(hub);
    const { show, of } = recorder();
    const intervalMs = 150;
    const thumbnails = sampler(show, intervalMs);
    thumbnails.track(session, hub);
    await session.start({ host: '127.0.0.1', port: 0 });
    thumbnails.setView({ sessionIds: [session.id], columns: 4, rows: 2, pixelWidth: 4, pixelHeight: 4 });
    const { framebuffer } = hub;
    const whole = { x: 0, y: 0, w: framebuffer.width, h: framebuffer.height };
    // Forty different screens in quick succession, each announced as damage.
    for (let i = 0; i < 40; i++) {
      framebuffer.fill(whole, (i * 6) << 8);
      framebuffer.damage(whole);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(() => pixelsOf(of(session.id).at(-1)?.thumbnail)?.rgb[1] === 39 * 6, 'the last screen in the picture');
    const times = of(session.id).map((s) => s.at);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(intervalMs - 5);
  });

  it('samples only the tiles on screen, and a tile as it comes into view', async () => {
    const sessions = registry();
    const hubs = [new RfbHub(resolveTarget('demo:vm-a', {})), new RfbHub(resolveTarget('demo:vm-b', {}))];
    const [hidden, seen] = hubs.map((hub) => sessions.add(hub));
    const { show, of } = recorder();
    const thumbnails = sampler(show, 0);
    thumbnails.track(hidden, hubs[0]);
    thumbnails.track(seen, hubs[1]);
    await Promise.all([hidden.start({ host: '127.0.0.1', port: 0 }), seen.start({ host: '127.0.0.1', port: 0 })]);
    thumbnails.setView({ sessionIds: [seen.id], columns: 4, rows: 2, pixelWidth: 4, pixelHeight: 4 });
    await waitFor(() => of(seen.id).length > 0, 'the visible tile');
    const before = of(seen.id).length;
    // The hidden screen changes first: were it sampled, its timer would fire before the visible one's.
    for (const [i, hub] of hubs.entries()) {
      hub.framebuffer.fill({ x: 0, y: 0, w: 8, h: 8 }, 0x00ff00 + i);
      hub.framebuffer.damage({ x: 0, y: 0, w: 8, h: 8 });
    }
    await waitFor(() => of(seen.id).length > before, 'the visible tile again');
    expect(of(hidden.id)).toEqual([]);
    thumbnails.setView({ sessionIds: [hidden.id], columns: 4, rows: 2, pixelWidth: 4, pixelHeight: 4 });
    await waitFor(() => of(hidden.id).length > 0, 'the tile that came into view');
  });

  it("gives a serial console's last lines, and says why an unshared VNC console has no picture", async () => {
    const sessions = registry();
    const serial = sessions.add(shareSerial(resolveTarget('demo:vm-c#serial', {})));
    const plain = sessions.add(resolveTarget('demo:vm-d', {}));
    const { show, of } = recorder();
    const thumbnails = sampler(show, 0);
    thumbnails.track(serial, undefined);
    thumbnails.track(plain, undefined);
    thumbnails.setView({ sessionIds: [serial.id, plain.id], columns: 40, rows: 5, pixelWidth: 40, pixelHeight: 10 });
    await Promise.all([serial.start({ host: '127.0.0.1', port: 0 }), plain.start({ host: '127.0.0.1', port: 0 })]);
    await waitFor(
      () => of(serial.id).some((s) => s.thumbnail?.type === 'lines' && s.thumbnail.lines.some((l) => l.includes('vm-c login'))),
      'the login line',
    );
    await waitFor(() => of(plain.id).some((s) => s.thumbnail?.type === 'none'), 'the reason');
    expect(of(plain.id).at(-1)?.thumbnail).toEqual({
      type: 'none',
      reason: 'no picture: this VNC console is not shared (drop --no-share)',
    });
  });

  it("without pictures (--thumbnails none, NO_COLOR) still gives a serial console's lines, and reads no screen", async () => {
    const sessions = registry();
    const serial = sessions.add(shareSerial(resolveTarget('demo:vm-c#serial', {})));
    const hub = new RfbHub(resolveTarget('demo:vm-a', {}));
    const screen = sessions.add(hub);
    const { show, of } = recorder();
    const thumbnails = sampler(show, 0, false);
    thumbnails.track(screen, hub);
    thumbnails.track(serial, undefined);
    await Promise.all([serial.start({ host: '127.0.0.1', port: 0 }), screen.start({ host: '127.0.0.1', port: 0 })]);
    await waitFor(() => hub.framebuffer.width > 0, 'the screen');
    // Both tiles are sampled as they come into view, the screen first: by the serial line's lines, it was.
    thumbnails.setView({ sessionIds: [screen.id, serial.id], columns: 40, rows: 5, pixelWidth: 40, pixelHeight: 10 });
    await waitFor(
      () => of(serial.id).some((s) => s.thumbnail?.type === 'lines' && s.thumbnail.lines.some((l) => l.includes('vm-c login'))),
      'the login line',
    );
    expect(of(screen.id).filter((s) => s.thumbnail !== undefined)).toEqual([]);
  });
});
