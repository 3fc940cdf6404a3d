import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeRfbRecord, encodeRfbRecordingHead, parseRfbRecording } from '../../src/recording/rfb-recording.js';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { parseAsciicast } from '../../src/recording/asciicast.js';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { picture, serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { waitFor } from '../support/wait.js';

const W = 64;
const H = 48;
const BLUE = 0x2050a0;
const ORANGE = 0xf08020;
/** Where a key press paints orange. */
const SPOT = { x: 8, y: 8, w: 16, h: 8 };

/**
 * A VNC server with a screen that changes only when told to: blue, and an orange spot once a key
 * is pressed. Deterministic, so a replayed picture can be compared pixel by pixel.
 */
async function keyPaintingServer() {
  return startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, W, H);
    peer.write(update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => BLUE) }]));
    for (;;) {
      const type = (await peer.read(1))[0];
      if (type === 3) await peer.read(9);
      else if (type === 5) await peer.read(5);
      else if (type === 4) {
        const key = await peer.read(7);
        if (key[0] === 1) peer.write(update([{ rect: SPOT, encoding: 0, body: picture(SPOT.w, SPOT.h, () => ORANGE) }]));
      } else if (type === 2) await peer.read(3 + (await peer.read(3)).readUInt16BE(1) * 4);
      else if (type === 0) await peer.read(19);
      else return;
    }
  });
}

const cleanup: (() => unknown)[] = [];
const running: RunningVconsole[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await child.stop();
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-record-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function onlyFile(dir: string, extension: string): string {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(extension));
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]);
}

function pngPixel(file: string, x: number, y: number): number {
  const png = PNG.sync.read(fs.readFileSync(file));
  const at = (y * png.width + x) * 4;
  return (png.data[at] << 16) | (png.data[at + 1] << 8) | png.data[at + 2];
}

/** Records a session in which a viewer presses a key; resolves with the recording's path. */
async function recordKeyPress(extraArgs: string[] = []): Promise<{ dir: string; file: string; child: RunningVconsole }> {
  const server = await keyPaintingServer();
  cleanup.push(() => server.close());
  const dir = tempDir();
  const child = startVconsole(['proxy', `tcp://127.0.0.1:${server.port}`, '--record', dir, ...extraArgs]);
  running.push(child);
  const [line] = await child.jsonLines(1);
  const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
  await waitFor(() => pixelAt(viewer.framebuffer, 0, 0) === BLUE, 'the first picture');
  viewer.client.key(true, 0x78);
  viewer.client.key(false, 0x78);
  await waitFor(() => pixelAt(viewer.framebuffer, SPOT.x, SPOT.y) === ORANGE, 'the key painting the spot');
  return { dir, file: onlyFile(dir, '.vncrec'), child };
}

describe('vconsole --record and replay (VNC)', () => {
  it('records through the shared session, 0600, with what the console sent and what the viewer typed', async () => {
    const { file, child } = await recordKeyPress();
    await child.waitForStderr(/recording to .*\.vncrec/);
    await child.stop();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const recording = parseRfbRecording(fs.readFileSync(file));
    expect(recording.truncated).toBe(false);
    const sent = Buffer.concat(recording.connections[0].records.filter((r) => r.kind === 'C').map((r) => r.data));
    // KeyEvent: type 4, down 1, padding, keysym 'x'.
    expect(sent.includes(Buffer.from([4, 1, 0, 0, 0, 0, 0, 0x78]))).toBe(true);
  });

  it('replay --png-every writes the screen as it was: blue first, the spot after the key', async () => {
    const { dir, file, child } = await recordKeyPress();
    await child.stop();
    const frames = path.join(dir, 'frames');
    const result = await runVconsole(['replay', file, '--png-every', '50ms', '-o', frames]);
    expect(result.code, result.stderr).toBe(0);
    const written = result.stdout.trim().split('\n');
    expect(written.length).toBeGreaterThan(1);
    expect(written.every((f) => fs.existsSync(f))).toBe(true);
    expect(pngPixel(written[0], SPOT.x, SPOT.y)).toBe(BLUE);
    expect(pngPixel(written[written.length - 1], SPOT.x, SPOT.y)).toBe(ORANGE);
    expect(pngPixel(written[written.length - 1], 0, 0)).toBe(BLUE);
  });

  it('replay --png-every starts at the first picture: none of the blank screen before it', async () => {
    // Made by hand: the screen's size at once, its first picture only 300 ms later, as a loaded
    // machine may record it; at 100 ms a frame the screen would be black for two frames.
    const file = path.join(tempDir(), 'late.vncrec');
    fs.writeFileSync(
      file,
      Buffer.concat([
        encodeRfbRecordingHead({ name: 'late', started: new Date().toISOString() }),
        encodeRfbRecord('N', 0),
        encodeRfbRecord('S', 0, Buffer.from('RFB 003.008\n')),
        encodeRfbRecord('S', 1, Buffer.from([1, 1])),
        encodeRfbRecord('S', 2, Buffer.from([0, 0, 0, 0])),
        encodeRfbRecord('S', 3, encodeServerInit(W, H, 'late')),
        encodeRfbRecord('S', 300, update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => BLUE) }])),
        encodeRfbRecord('S', 650, update([{ rect: { x: 0, y: 0, w: 1, h: 1 }, encoding: 0, body: picture(1, 1, () => BLUE) }])),
      ]),
    );
    const frames = path.join(path.dirname(file), 'frames');
    const result = await runVconsole(['replay', file, '--png-every', '100ms', '-o', frames]);
    expect(result.code, result.stderr).toBe(0);
    const written = result.stdout.trim().split('\n');
    expect(written.map((f) => path.basename(f))).toEqual([
      'late-000000.400s.png',
      'late-000000.500s.png',
      'late-000000.600s.png',
      'late-000000.650s.png',
    ]);
    expect(written.map((f) => pngPixel(f, 0, 0))).toEqual([BLUE, BLUE, BLUE, BLUE]);
  });

  it('replay serves the recording to any viewer, from the start', async () => {
    // A recording made by hand: blue at once, the orange spot 2 s later, so a viewer that
    // connects sees the start before the change, however busy the machine.
    const file = path.join(tempDir(), 'crafted.vncrec');
    fs.writeFileSync(
      file,
      Buffer.concat([
        encodeRfbRecordingHead({ name: 'crafted', started: new Date().toISOString() }),
        encodeRfbRecord('N', 0),
        encodeRfbRecord('S', 0, Buffer.from('RFB 003.008\n')),
        encodeRfbRecord('S', 1, Buffer.from([1, 1])),
        encodeRfbRecord('S', 2, Buffer.from([0, 0, 0, 0])),
        encodeRfbRecord('S', 3, encodeServerInit(W, H, 'crafted')),
        encodeRfbRecord('S', 4, update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => BLUE) }])),
        encodeRfbRecord('S', 2000, update([{ rect: SPOT, encoding: 0, body: picture(SPOT.w, SPOT.h, () => ORANGE) }])),
      ]),
    );
    const replay = startVconsole(['replay', file]);
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    expect(line).toMatchObject({ target: 'replay:crafted', address: '127.0.0.1', type: 'vnc' });
    for (let viewers = 0; viewers < 2; viewers++) {
      const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
      await waitFor(() => pixelAt(viewer.framebuffer, 0, 0) === BLUE, 'the first picture');
      expect(pixelAt(viewer.framebuffer, SPOT.x, SPOT.y)).toBe(BLUE);
      await waitFor(() => pixelAt(viewer.framebuffer, SPOT.x, SPOT.y) === ORANGE, 'the change, replayed');
      // Viewer input goes nowhere: a replay is watched, not driven.
      viewer.client.key(true, 0x78);
    }
    await replay.waitForStderr(/replay finished/);
  });

  it('names who hung up: a viewer leaving a recorded session, and one leaving a replay, is the viewer', async () => {
    const { file, child } = await recordKeyPress();
    const leave = async (port: number) => {
      const viewer = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => viewer.once('data', resolve));
      viewer.end();
    };
    const [recorded] = await child.jsonLines(1);
    await leave(recorded.port as number);
    await child.waitForStderr(/client 2 disconnected: the viewer closed the connection/);
    expect(child.stderr()).not.toMatch(/client 2 disconnected: the console closed/);
    await child.stop();
    const replay = startVconsole(['replay', file]);
    running.push(replay);
    const [line] = await replay.jsonLines(1);
    await leave(line.port as number);
    await replay.waitForStderr(/client 1 disconnected: the viewer closed the connection/);
    expect(replay.stderr()).not.toMatch(/the console closed/);
  });

  it('a recording cut by kill -9 still replays', async () => {
    const { file, child } = await recordKeyPress();
    // Whatever is older than the flush interval is on disk: wait for the key's answer to be (the
    // recording holds the console's bytes as they came, in however many reads a busy machine made).
    const answer = update([{ rect: SPOT, encoding: 0, body: picture(SPOT.w, SPOT.h, () => ORANGE) }]);
    const onDisk = () =>
      Buffer.concat(
        (parseRfbRecording(fs.readFileSync(file)).connections[0]?.records ?? []).filter((r) => r.kind === 'S').map((r) => r.data),
      );
    await waitFor(() => onDisk().includes(answer), 'the recording on disk');
    child.kill();
    await child.exit();
    const frames = path.join(path.dirname(file), 'frames');
    const result = await runVconsole(['replay', file, '--png-every', '1s', '-o', frames]);
    expect(result.code, result.stderr).toBe(0);
    const written = result.stdout.trim().split('\n');
    expect(pngPixel(written[written.length - 1], SPOT.x, SPOT.y)).toBe(ORANGE);
  });

  it('bad input: --no-share with --record, an unwritable directory, a file that is not a recording', async () => {
    const noShare = await runVconsole(['proxy', 'demo:vm-a', '--record', tempDir(), '--no-share']);
    expect(noShare.code).toBe(2);
    expect(noShare.stderr).toMatch(/^vconsole: --record and --no-share do not go together/m);
    const file = path.join(tempDir(), 'file');
    fs.writeFileSync(file, 'x');
    const unwritable = await runVconsole(['proxy', 'demo:vm-a', '--record', path.join(file, 'sub')]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/cannot write recordings there/);
    const notRecording = await runVconsole(['replay', file]);
    expect(notRecording.code).toBe(2);
    expect(notRecording.stderr).toMatch(/is not a vconsole recording/);
    const badSpeed = await runVconsole(['replay', file, '--speed', '0']);
    expect(badSpeed.code).toBe(2);
    for (const r of [noShare, unwritable, notRecording, badSpeed]) expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('vconsole --record (serial)', () => {
  it('records a serial console as asciicast that replay plays back', async () => {
    const dir = tempDir();
    const child = startVconsole(['console', 'demo:vm-c#serial', '--record', dir]);
    running.push(child);
    child.process.stdin.write('echo hello-record\n');
    await waitFor(
      () =>
        fs.readdirSync(dir).some((f) => f.endsWith('.cast')) && fs.readFileSync(onlyFile(dir, '.cast'), 'utf8').includes('hello-record'),
      'the echo recorded',
    );
    child.process.stdin.end();
    await child.exit();
    const file = onlyFile(dir, '.cast');
    const cast = parseAsciicast(fs.readFileSync(file, 'utf8'));
    expect(cast.header).toMatchObject({ version: 2, title: 'demo:vm-c#serial' });
    expect(cast.events.some((e) => e.kind === 'i' && e.text.includes('echo hello-record'))).toBe(true);
    const replay = await runVconsole(['replay', file, '--speed', '100']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('hello-record');
  });

  it("replay plays no pause longer than the idle time limit: an hour's silent lead-in passes at once", async () => {
    const file = path.join(tempDir(), 'quiet.cast');
    const header = { version: 2, width: 80, height: 24, timestamp: 0 };
    const events = [
      [3600, 'o', 'after an hour\r\n'],
      [3600.1, 'o', 'and then\r\n'],
      [7200, 'o', 'another hour later\r\n'],
    ];
    fs.writeFileSync(file, [header, ...events].map((line) => JSON.stringify(line)).join('\n') + '\n');
    const capped = await runVconsole(['replay', file, '--idle-time-limit', '0.2']);
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stdout).toBe('after an hour\r\nand then\r\nanother hour later\r\n');
    // The default: 2 s at most per pause, at 100 times real time.
    const byDefault = await runVconsole(['replay', file, '--speed', '100']);
    expect(byDefault.stdout).toContain('another hour later');
    const bad = await runVconsole(['replay', file, '--idle-time-limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid idle time limit "0": use a number of seconds above 0/);
  });
});
