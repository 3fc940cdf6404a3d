import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { parseRfbRecording } from '../../src/recording/rfb-recording.js';
import { runVconsole } from '../support/cli.js';
import { it } from '../support/fixtures.js';
import { picture, serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { mountTinyFilesystem, tinyFilesystemSkip } from '../support/tiny-filesystem.js';
import { waitFor } from '../support/wait.js';

// The files vconsole writes and reads, as a user (or another local user, or a full disk) meets
// them through the command line: what keeps serving, what is refused, and the one line said.

const W = 64;
const H = 48;

/** A VNC server that repaints its whole screen in a new colour at each key press: 12 KB a press. */
async function repaintingServer() {
  return startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, W, H);
    peer.write(update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => 0x000080) }]));
    for (;;) {
      const type = (await peer.read(1))[0];
      if (type === 3) await peer.read(9);
      else if (type === 5) await peer.read(5);
      else if (type === 4) {
        const key = await peer.read(7);
        const colour = key.readUInt32BE(3) & 0xffffff;
        if (key[0] === 1) peer.write(update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => colour) }]));
      } else if (type === 2) await peer.read(3 + (await peer.read(3)).readUInt16BE(1) * 4);
      else if (type === 0) await peer.read(19);
      else return;
    }
  });
}

/** The kind of every record of an RFB recording, in order (docs/RECORDING.md: kind, u32 time, u32 length, payload). */
function recordKinds(file: Buffer): string[] {
  const kinds: string[] = [];
  let offset = file.indexOf(0x0a, file.indexOf(0x0a) + 1) + 1;
  while (offset + 9 <= file.length) {
    kinds.push(String.fromCharCode(file[offset]));
    offset += 9 + file.readUInt32BE(offset + 5);
  }
  return kinds;
}

const linesMatching = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line));

describe('files vconsole writes', () => {
  it.skipIf(tinyFilesystemSkip)(
    `--record onto a disk that fills: the console and its viewers go on, and one line says the recording stopped${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async ({ cleanup, vconsole }) => {
      const disk = mountTinyFilesystem({ sizeKiB: 64 });
      cleanup.add(() => disk.unmount());
      const server = await repaintingServer();
      cleanup.add(() => server.close());
      const child = vconsole.start(['proxy', `tcp://127.0.0.1:${server.port}`, '--record', disk.dir]);
      const [line] = await child.jsonLines(1);
      const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
      await waitFor(() => pixelAt(viewer.framebuffer, 0, 0) === 0x000080, 'the first picture');
      await child.waitForStderr(/recording to .*\.vncrec/);
      disk.fill();
      let colour = 0x100000;
      await waitFor(
        () => {
          // Every poll repaints the screen once more: 12 KB more to record, till the disk refuses it.
          viewer.client.key(true, (colour += 0x10));
          viewer.client.key(false, colour);
          return /recording stopped/.test(child.stderr());
        },
        'the recording to stop on the full disk',
        30_000,
      );
      const stopped = linesMatching(child.stderr(), /recording stopped/);
      expect(stopped).toHaveLength(1);
      expect(stopped[0]).toMatch(new RegExp(`cannot write ${disk.dir}/.*\\.vncrec: disk full`));
      expect(child.stderr()).not.toMatch(/\n\s+at /);
      // Still serving: the viewer's key repaints its screen, and a new viewer gets the picture.
      viewer.client.key(true, 0x00ff00);
      viewer.client.key(false, 0x00ff00);
      await waitFor(() => pixelAt(viewer.framebuffer, 0, 0) === 0x00ff00, 'the repaint after the disk filled');
      const second = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
      await waitFor(() => pixelAt(second.framebuffer, 0, 0) === 0x00ff00, "a second viewer's picture");
      expect(child.process.exitCode).toBeNull();
      expect(linesMatching(child.stderr(), /recording stopped/)).toHaveLength(1);
    },
    60_000,
  );

  it.skipIf(tinyFilesystemSkip)(
    `--record into a read-only file system says "read-only", not "no such file"${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async ({ cleanup }) => {
      const disk = mountTinyFilesystem({ readOnly: true });
      cleanup.add(() => disk.unmount());
      const result = await runVconsole(['proxy', 'demo:vm-a', '--record', path.join(disk.dir, 'recordings')]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/cannot write recordings there \(read-only file system\)/);
    },
  );

  it.for(['SIGINT', 'SIGTERM'] as const)(
    'a clean stop (%s) ends the recording with the closing record of its connection',
    async (signal, { cleanup, tmpDir, vconsole }) => {
      const dir = tmpDir;
      const child = vconsole.start(['proxy', 'demo:vm-a', '--record', dir]);
      const [line] = await child.jsonLines(1);
      const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
      await waitFor(() => viewer.framebuffer.width > 0, 'the demo picture');
      await child.waitForStderr(/recording to .*\.vncrec/);
      child.process.kill(signal);
      expect(await child.exit()).toMatchObject({ signal: null });
      const [file] = fs.readdirSync(dir).filter((name) => name.endsWith('.vncrec'));
      const bytes = fs.readFileSync(path.join(dir, file));
      expect(parseRfbRecording(bytes).truncated).toBe(false);
      const kinds = recordKinds(bytes);
      expect(kinds[0]).toBe('N');
      expect(kinds.at(-1)).toBe('E');
    },
  );

  it('replay --png-every writes its frames 0600, like the recording they come from', async ({ cleanup, tmpDir, vconsole }) => {
    const dir = tmpDir;
    const child = vconsole.start(['proxy', 'demo:vm-r', '--record', dir]);
    const [line] = await child.jsonLines(1);
    const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
    await waitFor(() => viewer.framebuffer.width > 0, 'the demo picture');
    await child.stop();
    const [file] = fs.readdirSync(dir).filter((name) => name.endsWith('.vncrec'));
    const frames = path.join(dir, 'frames');
    const result = await runVconsole(['replay', path.join(dir, file), '--png-every', '10s', '-o', frames]);
    expect(result.code, result.stderr).toBe(0);
    const written = fs.readdirSync(frames);
    expect(written.length).toBeGreaterThan(0);
    for (const name of written) expect(fs.statSync(path.join(frames, name)).mode & 0o777, name).toBe(0o600);
  });

  it('--record into a directory other users may write to says so, once for all its consoles', async ({ cleanup, tmpDir, vconsole }) => {
    const dir = tmpDir;
    fs.chmodSync(dir, 0o777);
    const child = vconsole.start(['proxy', 'demo:vm-w1', 'demo:vm-w2', '--record', dir]);
    const lines = await child.jsonLines(2);
    for (const line of lines) {
      const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
      await waitFor(() => viewer.framebuffer.width > 0, 'the demo picture');
    }
    await waitFor(() => linesMatching(child.stderr(), /recording to/).length === 2, 'both recordings');
    expect(linesMatching(child.stderr(), /writable by other users/)).toEqual([
      expect.stringContaining(`${dir} is writable by other users (mode 777), who can replace the files vconsole writes there`),
    ]);
  });

  it('screenshot -o FILE is written 0600, like recordings and logs', async ({ tmpDir }) => {
    const file = path.join(tmpDir, 'shot.png');
    const result = await runVconsole(['screenshot', 'demo:vm-a', '-o', file]);
    expect(result.code).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')(
    'open --log-dir does not follow a NAME.log symlink planted there: the file it points to stays as it was, and a line says why',
    async ({ tmpDir, vconsole }) => {
      const dir = tmpDir;
      const logDir = path.join(dir, 'logs');
      fs.mkdirSync(logDir, { mode: 0o700 });
      const victim = path.join(dir, 'victim');
      fs.writeFileSync(victim, 'precious\n');
      fs.symlinkSync(victim, path.join(logDir, 'demo_vm-l_serial.log'));
      const open = vconsole.start(['open', 'demo:vm-l#serial', '--no-tui', '--viewer', 'none', '--log-dir', logDir]);
      await open.jsonLines(1);
      await open.waitForStderr(/cannot write its serial log/);
      expect(linesMatching(open.stderr(), /cannot write its serial log/)).toEqual([
        expect.stringContaining(`${path.join(logDir, 'demo_vm-l_serial.log')}: it is a symbolic link, which vconsole does not follow`),
      ]);
      await open.stop();
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    },
  );
});

describe('the config file vconsole reads', () => {
  it.skipIf(process.platform === 'win32')(
    '--config /dev/zero is refused at once with one line (not read until memory runs out)',
    async () => {
      const result = await runVconsole(['list', '--config', '/dev/zero'], {}, 15_000);
      expect(result.signal).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        'vconsole: config file /dev/zero is not a regular file (a device); point --config or VCONSOLE_CONFIG at a YAML file',
      ]);
    },
  );

  it.skipIf(process.platform === 'win32')(
    '--config naming a FIFO is refused at once with one line (no read that waits for a writer)',
    async ({ tmpDir }) => {
      const fifo = path.join(tmpDir, 'config.yaml');
      execFileSync('mkfifo', [fifo]);
      const result = await runVconsole(['list', '--config', fifo], {}, 15_000);
      expect(result.signal).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `vconsole: config file ${fifo} is not a regular file (a FIFO); point --config or VCONSOLE_CONFIG at a YAML file`,
      ]);
    },
  );
});
