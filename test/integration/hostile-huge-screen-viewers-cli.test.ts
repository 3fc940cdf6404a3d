import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { churningClient, discardingClient, peakMemoryMiB } from '../support/hostile-peers.js';
import { waitFor } from '../support/wait.js';

// The viewer side of the hub under a hostile console: an 8192x8192 screen filled anew on every
// request (16 bytes on the wire) costs the hub's viewer server a whole screen to encode per
// viewer. Watched by several viewers beside a healthy console in one `proxy --share`, the
// healthy console still answers new viewers promptly and SIGINT still ends the process.

const SIDE = 8192;
const running: RunningVconsole[] = [];
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A Tight fill of the whole screen in a colour of its own: every message damages it all. */
function wholeScreenFill(i: number): Buffer {
  return update([{ rect: { x: 0, y: 0, w: SIDE, h: SIDE }, encoding: 7, body: Buffer.from([0x80, i & 0xff, (i >> 8) & 0xff, 0x80]) }]);
}

async function churningConsole() {
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, SIDE, SIDE);
    peer.write(wholeScreenFill(0));
    for (let i = 1; !peer.socket.destroyed; i++) {
      await peer.read(10);
      peer.write(wholeScreenFill(i));
    }
  });
  cleanup.push(() => server.close());
  return server.port;
}

describe('proxy --share with viewers of a hostile 8192x8192 console', () => {
  it('keeps answering the healthy console and ends on SIGINT while the hostile screen is encoded for four viewers', async () => {
    const hostilePort = await churningConsole();
    const proxy = startVconsole(['proxy', '--share', `tcp://127.0.0.1:${hostilePort}`, 'demo:vm-a']);
    running.push(proxy);
    const lines = await proxy.jsonLines(2, 30_000);
    const healthyPort = lines.find((l) => l.target === 'demo:vm-a')?.port as number;
    const sharedPort = lines.find((l) => l.target !== 'demo:vm-a')?.port as number;
    const viewers: Array<Awaited<ReturnType<typeof churningClient>>> = [];
    for (let i = 0; i < 4; i++) viewers.push(await churningClient(sharedPort));
    cleanup.push(() => viewers.forEach((v) => v.socket.destroy()));
    // Under way: each viewer was sent more than one whole screen of the churning console.
    await waitFor(() => viewers.every((v) => v.pixels() > SIDE * SIDE), 'the viewers following the churn', 60_000);
    // New viewers of the healthy console, one after another for several seconds: whenever the
    // hostile screen is being encoded, each is answered promptly.
    const probing = performance.now();
    const waits: number[] = [];
    while (performance.now() - probing < 6000) {
      const asked = performance.now();
      const viewer = await discardingClient(healthyPort);
      viewer.socket.destroy();
      waits.push(performance.now() - asked);
    }
    // Wall-clock waits on a machine this test loads on purpose, so one of them may also meet a
    // stall of the machine (~1 s): all but the slowest within 1.5 s, the slowest within 5 s.
    // Measured on 2 cores with two busy loops beside: slowest 0.2-0.8 s. Without the banded
    // encoding and the update's pixel cap, 2-3 waits of each run took 2.0-2.8 s, the others
    // ~30 ms (so a 90th percentile would not see it; the second slowest does). Without the turn
    // budget alone (the cap kept) the slowest took 0.5-1.2 s: no wall-clock bound here tells
    // that from a busy machine; src/rfb/server/update.test.ts tests the budget itself.
    waits.sort((a, b) => b - a);
    expect(waits[0], 'the healthy console answered every new viewer within (ms)').toBeLessThan(5000);
    expect(waits[1] ?? 0, 'the healthy console answered all new viewers but one within (ms)').toBeLessThan(1500);
    expect(
      viewers.every((v) => v.socket.readyState === 'open'),
      "the hostile console's viewers are still served",
    ).toBe(true);
    expect(peakMemoryMiB(proxy.process.pid ?? 0), 'VmHWM (MiB)').toBeLessThan(1024);
    const interrupted = performance.now();
    proxy.process.kill('SIGINT');
    await proxy.exit();
    expect(performance.now() - interrupted, 'SIGINT ended the process within').toBeLessThan(2000);
  }, 120_000);
});
