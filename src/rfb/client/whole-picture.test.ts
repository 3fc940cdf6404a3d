import { describe, expect, it } from 'vitest';
import { Framebuffer } from '../wire/framebuffer.js';
import { wholePicture } from './whole-picture.js';

/** A console client whose every update draws the next of `updates` into the framebuffer. */
function scriptedClient(framebuffer: Framebuffer, updates: (() => void)[]) {
  let sent = 0;
  return {
    sent: () => sent,
    nextUpdate: async () => {
      const draw = updates[sent++];
      if (!draw) throw new Error('no more updates: the picture was never whole');
      draw();
    },
  };
}

describe('wholePicture', () => {
  it('counts a screen that arrives a few rows at a time (Raw as its bytes come in)', async () => {
    const fb = new Framebuffer(40, 30);
    const updates = Array.from({ length: 10 }, (_, i) => () => fb.damage({ x: 0, y: i * 3, w: 40, h: 3 }));
    const client = scriptedClient(fb, updates);
    await wholePicture(client, fb);
    expect(client.sent()).toBe(10);
  });

  it('waits past a size-only update and past overlapping partial ones', async () => {
    const fb = new Framebuffer(0, 0);
    const client = scriptedClient(fb, [
      () => fb.resize(20, 10),
      () => fb.damage({ x: 0, y: 0, w: 15, h: 10 }),
      () => fb.damage({ x: 5, y: 0, w: 10, h: 10 }),
      () => fb.damage({ x: 15, y: 0, w: 5, h: 10 }),
    ]);
    await wholePicture(client, fb);
    expect(client.sent()).toBe(4);
  });

  it('starts over when the screen changes size half way', async () => {
    const fb = new Framebuffer(10, 10);
    const client = scriptedClient(fb, [
      () => fb.damage({ x: 0, y: 0, w: 10, h: 5 }),
      () => fb.resize(10, 20),
      () => fb.damage({ x: 0, y: 5, w: 10, h: 15 }),
      () => fb.damage({ x: 0, y: 0, w: 10, h: 5 }),
    ]);
    await wholePicture(client, fb);
    expect(client.sent()).toBe(4);
  });

  it('counts fills over a huge screen by rows, without a pass per pixel', async () => {
    const fb = new Framebuffer(8192, 8192);
    let fills = 0;
    const client = {
      nextUpdate: async () => {
        // 200 whole-screen fills and a last one: 13 billion pixels if each were visited.
        for (let i = 0; i < 200; i++) fb.damage({ x: 0, y: 0, w: 8192, h: 8192 });
        fills += 200;
      },
    };
    // CPU time, not wall time: a busy machine may take the CPU away meanwhile. A pass per
    // pixel would be 13 billion visits, minutes of it.
    const started = process.cpuUsage();
    await wholePicture(client, fb);
    expect(fills).toBe(200);
    const spent = process.cpuUsage(started);
    expect((spent.user + spent.system) / 1000, 'CPU ms').toBeLessThan(2000);
  });

  it('is not whole while a column is missing, however the rest was drawn', async () => {
    const fb = new Framebuffer(30, 4);
    const client = scriptedClient(fb, [
      () => fb.damage({ x: 20, y: 0, w: 10, h: 4 }),
      () => fb.damage({ x: 0, y: 0, w: 9, h: 4 }),
      () => fb.damage({ x: 10, y: 0, w: 10, h: 4 }),
      () => fb.damage({ x: 5, y: 0, w: 6, h: 4 }),
    ]);
    await wholePicture(client, fb);
    expect(client.sent()).toBe(4);
  });
});
