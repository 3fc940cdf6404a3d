import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RFB_RECORDING_MAGIC, encodeRfbRecord, encodeRfbRecordingHead } from '../../src/recording/rfb-recording.js';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { childWorkMeter } from '../support/cpu-time.js';
import { picture, update } from '../support/fake-rfb-server.js';
import { tightFillFlood } from '../support/hostile-rfb.js';
import { discardingClient, peakMemoryMiB } from '../support/hostile-peers.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { waitFor } from '../support/wait.js';
import { ByteReader, expectedVncResponse } from '../support/rfb-client.js';

// `replay` trusts nothing in its file (the security audit's crafted recordings): a head that is
// not an object, timestamps far ahead, a huge declared screen, floods of fills, and connections
// by the hundred thousand each end in one line or a bounded cost, and SIGINT always works.

const cleanup: (() => unknown)[] = [];
const running: RunningVconsole[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill();
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-hostile-replay-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The console's side of a handshake (3.8, security None) then `after`, as records of one connection. */
function connection(width: number, height: number, after: Buffer[], startMs = 0): Buffer[] {
  return [
    encodeRfbRecord('N', startMs),
    encodeRfbRecord('S', startMs, Buffer.from('RFB 003.008\n')),
    encodeRfbRecord('S', startMs + 1, Buffer.from([1, 1])),
    encodeRfbRecord('S', startMs + 2, Buffer.from([0, 0, 0, 0])),
    encodeRfbRecord('S', startMs + 3, encodeServerInit(width, height, 'crafted')),
    ...after.map((data, i) => encodeRfbRecord('S', startMs + 4 + i, data)),
  ];
}

function writeRecording(parts: Buffer[]): string {
  const file = path.join(tempDir(), 'crafted.vncrec');
  fs.writeFileSync(file, Buffer.concat([encodeRfbRecordingHead({ name: 'crafted', started: new Date().toISOString() }), ...parts]));
  return file;
}

/** A viewer's handshake up to the challenge; `answer` gives the password and resolves with the ServerInit. */
async function handshake(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  cleanup.push(() => socket.destroy());
  const reader = new ByteReader(socket);
  const read = (n: number) => reader.read(n, 60_000, 'the handshake');
  const challenge = (async () => {
    await read(12);
    socket.write('RFB 003.008\n');
    // VeNCrypt first, then plain VNC authentication (the test asks for it by name).
    expect([...(await read(3))]).toEqual([2, 19, 2]);
    socket.write(Buffer.from([2]));
    return read(16);
  })();
  return {
    challenge,
    async answer(password: string): Promise<Buffer> {
      socket.write(expectedVncResponse(password, await challenge));
      expect((await read(4)).readUInt32BE(0)).toBe(0);
      socket.write(Buffer.from([1]));
      return read(24);
    },
  };
}

const blue = (w: number, h: number) => update([{ rect: { x: 0, y: 0, w, h }, encoding: 0, body: picture(w, h, () => 0x2050a0) }]);

describe('replay of a hostile recording', () => {
  it('refuses a head that is not an object with one line', async () => {
    const file = path.join(tempDir(), 'null.vncrec');
    fs.writeFileSync(file, `${RFB_RECORDING_MAGIC}null\n`);
    const result = await runVconsole(['replay', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/null\.vncrec: not a vconsole recording: its head is not a JSON object/);
  });

  it('--png-every refuses a record stamped 49 days in with a line and writes no frame', async () => {
    const file = writeRecording([...connection(32, 32, [blue(32, 32)]), encodeRfbRecord('S', 0xffffffff, blue(32, 32))]);
    const frames = path.join(path.dirname(file), 'frames');
    const result = await runVconsole(['replay', file, '--png-every', '1s', '-o', frames], {}, 20_000);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--png-every 1s would write 4294968 frames over the 1193h 2m 47s the recording spans, more than 10000/);
    expect(fs.existsSync(frames)).toBe(false);
  });

  it('plays past 100,000 empty connections in bounded memory', async () => {
    const empty = Buffer.concat([encodeRfbRecord('N', 0), encodeRfbRecord('E', 0)]);
    const file = writeRecording([Buffer.alloc(empty.length * 100_000).fill(empty), ...connection(32, 32, [blue(32, 32)])]);
    const replay = startVconsole(['replay', file]);
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
    await waitFor(() => pixelAt(viewer.framebuffer, 31, 31) === 0x2050a0, 'the picture after the empty connections', 20_000);
    expect(peakMemoryMiB(replay.process.pid ?? 0)).toBeLessThan(250);
  });

  it('six viewers of a recording declaring 8192x8192 share one bounded screen budget', async () => {
    const side = 8192;
    const file = writeRecording(connection(side, side, [tightFillFlood(side, side, 1)]));
    const replay = startVconsole(['replay', file]);
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    const viewers = await Promise.allSettled(Array.from({ length: 6 }, () => discardingClient(line.port as number)));
    for (const viewer of viewers) if (viewer.status === 'fulfilled') cleanup.push(() => viewer.value.socket.destroy());
    await replay.waitForStderr(/does not fit beside the 1 other viewers of this replay/, 30_000);
    expect(peakMemoryMiB(replay.process.pid ?? 0)).toBeLessThan(1200);
  });

  it('behind a password, strangers who never authenticate cost no screen: the viewer who gives it gets the huge one', async () => {
    // 6000x6000 fits the replay's screen budget once: if each stranger's connection decoded the
    // recording, the first would take it and the real viewer would be refused.
    const side = 6000;
    const file = writeRecording(connection(side, side, [tightFillFlood(side, side, 1)]));
    const passwordFile = path.join(path.dirname(file), 'pass');
    fs.writeFileSync(passwordFile, 'r1ght-pw\n', { mode: 0o600 });
    // The handshake below is plain VNC authentication, asked for by name beside VeNCrypt.
    const replay = startVconsole(['replay', file, '--listen', '0.0.0.0', '--insecure-vnc-auth', '--password-file', passwordFile], {
      XDG_CONFIG_HOME: path.join(path.dirname(file), 'config'),
    });
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    const port = line.port as number;
    const strangers = await Promise.all(Array.from({ length: 3 }, () => handshake(port)));
    for (const stranger of strangers) await stranger.challenge;
    const viewer = await handshake(port);
    const init = await viewer.answer('r1ght-pw');
    expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([side, side]);
    expect(replay.stderr()).not.toMatch(/does not fit/);
  });

  it('a recording of fills over a huge screen leaves SIGINT working while a viewer watches', async () => {
    const side = 8192;
    const file = writeRecording(connection(side, side, [tightFillFlood(side, side, 375)]));
    const replay = startVconsole(['replay', file]);
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    const viewer = net.connect(line.port as number, '127.0.0.1');
    viewer.on('error', () => undefined);
    cleanup.push(() => viewer.destroy());
    // The viewer's dial is decoding the flood once the replay says who connected, or soon after.
    await new Promise<void>((resolve) => viewer.once('connect', () => resolve()));
    await waitFor(() => peakMemoryMiB(replay.process.pid ?? 0) > 200, 'the flood being decoded', 20_000);
    // Measured as the work (CPU time) it did meanwhile: a busy machine stretches the wall clock,
    // not that; decoding the flood to its end before SIGINT is seen takes seconds of it.
    const work = childWorkMeter(replay.process.pid);
    replay.process.kill('SIGINT');
    await replay.exit();
    expect(work.stop(), 'the CPU ms the replay spent between SIGINT and its end').toBeLessThan(1000);
  });
});
