import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { childWorkMeter } from '../support/cpu-time.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { discardingClient, peakMemoryMiB } from '../support/hostile-peers.js';
import { desktopSizeFlaps, hextileOneByteTiles, tightFillFlood, zrleBomb } from '../support/hostile-rfb.js';
import { waitFor } from '../support/wait.js';

// The security audit's hostile consoles, beside a healthy one in one `proxy --share`: whatever
// the hostile console sends, the healthy console answers new viewers after little work of the
// process (its CPU time, which a busy machine does not stretch as it does the wall clock: a
// flood decoded in one go costs seconds of it), SIGINT ends the process as promptly, and its
// memory stays bounded.

const SIDE = 8192;
/** Work (CPU ms) vconsole may do before an answer or its end: a decode turn costs tens of ms, the flood in one go seconds. */
const WORK_BOUND_MS = 1000;
const running: RunningVconsole[] = [];
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/**
 * An 8192x8192 console that answers its first update request with a picture (so start-up
 * checks pass) and every later one with `flood(i)`; counts the floods it sent.
 */
async function hostileConsole(flood: (i: number) => Buffer) {
  let sent = 0;
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, SIDE, SIDE);
    peer.write(update([{ rect: { x: 0, y: 0, w: SIDE, h: SIDE }, encoding: 7, body: Buffer.from([0x80, 1, 2, 3]) }]));
    for (let i = 0; !peer.socket.destroyed; i++) {
      await peer.read(10);
      peer.write(flood(i));
      sent++;
    }
  });
  cleanup.push(() => server.close());
  return { port: server.port, sent: () => sent };
}

const fills = () => tightFillFlood(SIDE, SIDE, 2000);
const floods: Array<[string, (i: number) => Buffer]> = [
  ['2000 Tight fills of the whole screen a message (32 KB)', fills],
  ['one-byte Hextile tiles over the whole screen', () => hextileOneByteTiles(SIDE, SIDE)],
  ['a ZRLE bomb (62 KB inflating to 61 MiB), then fills', (i) => (i === 0 ? zrleBomb(4608, 4608) : fills())],
  [
    'the screen flapping its size, filled each time',
    () =>
      Buffer.concat([
        desktopSizeFlaps({ w: 8000, h: 8000 }, { w: 8000, h: 8000 }, 1),
        tightFillFlood(8000, 8000, 1),
        desktopSizeFlaps({ w: SIDE, h: SIDE }, { w: SIDE, h: SIDE }, 1),
        tightFillFlood(SIDE, SIDE, 1),
      ]),
  ],
];

describe('proxy --share beside a hostile console', () => {
  it.each(floods)(
    '%s: the healthy console answers, memory stays bounded, SIGINT ends it',
    async (_name, flood) => {
      const hostile = await hostileConsole(flood);
      const proxy = startVconsole(['proxy', '--share', `tcp://127.0.0.1:${hostile.port}`, 'demo:vm-a']);
      running.push(proxy);
      const lines = await proxy.jsonLines(2, 30_000);
      const healthyPort = lines.find((l) => l.target === 'demo:vm-a')?.port as number;
      // The shared session decodes the hostile console from the start-up check on, viewer or not
      // (a viewer of it would measure the viewer server's encoding of 8192x8192, not the client).
      await waitFor(() => hostile.sent() >= 1, 'the flood under way', 100_000);
      for (let round = 0; round < 3; round++) {
        const work = childWorkMeter(proxy.process.pid);
        const viewer = await discardingClient(healthyPort);
        viewer.socket.destroy();
        expect(work.stop(), 'the CPU ms vconsole spent before the healthy console answered').toBeLessThan(WORK_BOUND_MS);
      }
      expect(peakMemoryMiB(proxy.process.pid ?? 0), 'VmHWM (MiB)').toBeLessThan(1024);
      const work = childWorkMeter(proxy.process.pid);
      proxy.process.kill('SIGINT');
      await proxy.exit();
      expect(work.stop(), 'the CPU ms vconsole spent between SIGINT and its end').toBeLessThan(WORK_BOUND_MS);
    },
    // A hang net, not a measure: starting vconsole and its flood takes long on a loaded machine.
    120_000,
  );
});
