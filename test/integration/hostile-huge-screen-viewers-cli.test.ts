import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { childWorkMeter } from '../support/cpu-time.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { churningClient, discardingClient, peakMemoryMiB } from '../support/hostile-peers.js';
import { waitFor } from '../support/wait.js';

// The viewer side of the hub under a hostile console: an 8192x8192 screen filled anew on every
// request (16 bytes on the wire) costs the hub's viewer server a whole screen to encode per
// viewer. Watched by several viewers beside a healthy console in one `proxy --share`, the
// healthy console still answers new viewers after little work and SIGINT still ends the process.

const SIDE = 8192;
/** Work (CPU ms) vconsole may do before a new viewer is answered, and between SIGINT and its end. */
const ANSWER_WORK_MS = 300;
const END_WORK_MS = 1000;
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
    // Under way: each viewer was sent more than one whole screen of the churning console (four
    // whole screens take a while on a loaded machine: the deadline is a hang net, not a measure).
    await waitFor(() => viewers.every((v) => v.pixels() > SIDE * SIDE), 'the viewers following the churn', 150_000);
    // New viewers of the healthy console, one after another while vconsole does 3 s of work
    // (CPU time: on a loaded machine the wall clock says nothing of it), encoding the hostile
    // screen for its viewers: each new viewer is answered after little of that work.
    const probing = childWorkMeter(proxy.process.pid);
    const encoded = viewers.map((v) => v.pixels());
    const works: number[] = [];
    while (works.length < 10 || probing.ms() < 3000) {
      if (works.length >= 5000) throw new Error(`vconsole did ${Math.round(probing.ms())} ms of work over 5000 new viewers`);
      const work = childWorkMeter(proxy.process.pid);
      const viewer = await discardingClient(healthyPort);
      viewer.socket.destroy();
      works.push(work.stop());
    }
    probing.stop();
    // CPU time does not grow with the machine's load, so the bound can be tight: measured on 2
    // cores at load 13, the most an answer cost was 150 ms; with the encoding's turn budget
    // lifted, 410-1020 ms (a wall-clock bound could not tell that from a busy machine).
    expect(Math.max(...works), `the most CPU ms vconsole spent before the healthy console answered (of ${works.length})`).toBeLessThan(
      ANSWER_WORK_MS,
    );
    expect(
      viewers.every((v, i) => v.pixels() > encoded[i]),
      'the hostile screen was encoded for every viewer meanwhile',
    ).toBe(true);
    expect(
      viewers.every((v) => v.socket.readyState === 'open'),
      "the hostile console's viewers are still served",
    ).toBe(true);
    expect(peakMemoryMiB(proxy.process.pid ?? 0), 'VmHWM (MiB)').toBeLessThan(1024);
    const work = childWorkMeter(proxy.process.pid);
    proxy.process.kill('SIGINT');
    await proxy.exit();
    expect(work.stop(), 'the CPU ms vconsole spent between SIGINT and its end').toBeLessThan(END_WORK_MS);
  }, 240_000);
});
