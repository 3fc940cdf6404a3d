import { execFileSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { RfbConsoleClient, type EncodingName } from '../../src/rfb/client/rfb-client.js';
import { failure } from '../support/streams.js';
import { countLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, type RunningProcess } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { qemuPcArgs } from './support/qemu.js';

// vconsole's own RFB client (the hub's upstream side) against QEMU's VNC server: what it
// decodes must be QEMU's framebuffer exactly, in every encoding QEMU offers.
const gate = requireTools(['qemu-system-x86_64', 'taskset', 'chrt']);

interface Vm {
  vncPath: string;
  qmp: Qmp;
  process: RunningProcess;
}

/** Pixels where `fb` (B G R X) differs from QEMU's picture (R G B), or -1 for another size. */
function differingPixels(fb: Framebuffer, image: RgbImage): number {
  if (fb.width !== image.width || fb.height !== image.height) return -1;
  let differing = 0;
  const pixels = fb.pixels;
  for (let i = 0; i < fb.width * fb.height; i++) {
    const p = image.pixels;
    if (pixels[i * 4 + 2] !== p[i * 3] || pixels[i * 4 + 1] !== p[i * 3 + 1] || pixels[i * 4] !== p[i * 3 + 2]) differing++;
  }
  return differing;
}

/** Pixels of `fb` brighter than dark grey (text on the BIOS screen). */
function litPixels(fb: Framebuffer): number {
  let lit = 0;
  for (let i = 0; i < fb.width * fb.height * 4; i += 4) if (fb.pixels[i] + fb.pixels[i + 1] + fb.pixels[i + 2] > 192) lit++;
  return lit;
}

describe.skipIf(gate.skip)(gatedTitle('RFB upstream client against QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;

  async function startVm(name: string, vncOptions = '', extraArgs: string[] = []): Promise<Vm> {
    const vncPath = join(dir, `${name}.vnc.sock`);
    const qmpPath = join(dir, `${name}.qmp.sock`);
    const args = [...qemuPcArgs(name), '-vnc', `unix:${vncPath}${vncOptions}`, '-qmp', `unix:${qmpPath},server=on,wait=off`, ...extraArgs];
    const qemu = lab.start(`qemu ${name}`, 'qemu-system-x86_64', args);
    await awaitSocketFile(vncPath, `QEMU ${name}'s VNC socket`, 60_000, () => qemu.describe());
    return { vncPath, qmp: await Qmp.connect(qmpPath), process: qemu };
  }

  function dial(vm: Vm): net.Socket {
    return net.connect(vm.vncPath);
  }

  /** Waits until the decoded picture equals QEMU's screendump (the text cursor blinks meanwhile). */
  async function expectScreendump(vm: Vm, fb: Framebuffer, minLit: number, about = () => ''): Promise<RgbImage> {
    let last = '';
    return pollFor(
      async () => {
        const image = await vm.qmp.screendump(dir);
        const differing = differingPixels(fb, image);
        last = `decoded ${fb.width}x${fb.height}, QEMU ${image.width}x${image.height}, ${differing} pixels differ, ${countLit(image)} lit`;
        return differing === 0 && countLit(image) >= minLit ? image : undefined;
      },
      {
        what: "the decoded framebuffer to equal QEMU's screendump",
        timeoutMs: 60_000,
        intervalMs: 200,
        detail: () => `${last} ${about()}`,
      },
    );
  }

  let bios: Vm;
  const seen: Record<string, string[]> = {};

  beforeAll(async () => {
    dir = await lab.tempDir('rfbup');
    bios = await startVm('bios');
    // QEMU starts at 640x480; SeaBIOS then switches to 720x400 text and prints its messages.
    await pollFor(
      async () => {
        const image = await bios.qmp.screendump(dir);
        return image.width === 720 && countLit(image) >= 1_500 ? true : undefined;
      },
      { what: 'the SeaBIOS text screen', timeoutMs: 90_000, intervalMs: 250 },
    );
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    process.stderr.write(`encodings QEMU sent for each preference: ${JSON.stringify(seen)}\n`);
    await lab.cleanup();
  }, 60_000);

  const preferences: Array<{ name: string; encodings?: EncodingName[]; expect: string }> = [
    { name: 'raw', encodings: ['raw'], expect: 'raw' },
    { name: 'hextile', encodings: ['hextile', 'raw'], expect: 'hextile' },
    { name: 'zrle', encodings: ['zrle', 'raw'], expect: 'zrle' },
    { name: 'zlib', encodings: ['zlib', 'raw'], expect: 'zlib' },
    { name: 'tight', encodings: ['tight', 'raw'], expect: 'tight' },
    { name: 'the default order', expect: 'zrle' },
  ];
  for (const preference of preferences) {
    it(
      `${preference.name}: the decoded BIOS screen (720x400) equals QEMU's screendump pixel for pixel`,
      async () => {
        const fb = new Framebuffer(1, 1);
        const client = await RfbConsoleClient.connect(dial(bios), fb, { encodings: preference.encodings });
        let closed: Error | undefined;
        client.on('close', (err) => (closed = err ?? new Error('closed')));
        try {
          expect(fb.width, 'ServerInit size').toBe(720);
          expect(fb.height).toBe(400);
          expect(fb.name).toBe('QEMU (bios)');
          // The first update after connect is the whole picture (what a screenshot takes).
          await client.nextUpdate();
          expect(litPixels(fb)).toBeGreaterThan(1_500);
          await expectScreendump(bios, fb, 1_500);
          // The blinking text cursor keeps updates coming: later rectangles continue the zlib
          // streams of the first ones, and must still decode to QEMU's picture.
          for (let i = 0; i < 4; i++) await client.nextUpdate();
          await expectScreendump(bios, fb, 1_500);
          expect(closed).toBeUndefined();
          seen[preference.name] = [...client.encodingsSeen].sort();
          expect([...client.encodingsSeen]).toContain(preference.expect);
          expect(client.supportsQemuKeys).toBe(true);
        } finally {
          client.close();
        }
      },
      E2E_TEST_TIMEOUT_MS,
    );
  }

  /** A 1 MiB boot disk whose first sector is `code` (16-bit real mode, run by SeaBIOS at 0x7c00). */
  async function bootDisk(name: string, code: number[]): Promise<string> {
    const disk = Buffer.alloc(1024 * 1024);
    Buffer.from(code).copy(disk);
    disk.writeUInt16LE(0xaa55, 510);
    const diskPath = join(dir, `${name}.img`);
    await writeFile(diskPath, disk);
    return diskPath;
  }

  // Pieces of boot sectors. VGA mode 13h: 320x200 in 256 colours, shown at 640x400.
  const MODE_13H = [0xb8, 0x13, 0x00, 0xcd, 0x10]; // mov ax,0x13; int 0x10
  // Paints mode 13h's screen with all 256 palette colours.
  const PAINT = [0x68, 0x00, 0xa0, 0x07, 0x31, 0xff, 0xb9, 0x00, 0xfa, 0x89, 0xf8, 0xaa, 0xe2, 0xfb]; // es=0xa000; di=0; 64000 x stosb of di
  // Paints the whole mode 13h screen white (colour 15): unlike any picture before it.
  const PAINT_WHITE = [0x68, 0x00, 0xa0, 0x07, 0x31, 0xff, 0xb9, 0x00, 0xfa, 0xb0, 0x0f, 0xf3, 0xaa]; // ...; mov al,15; rep stosb
  const HALT = [0xf4, 0xeb, 0xfd]; // hlt; jmp hlt
  const TEXT_MODE = [0xb8, 0x03, 0x00, 0xcd, 0x10]; // mov ax,3; int 0x10 (80x25 text, 720x400)

  /**
   * Boots `code` in a paused VM, connects one client for each encoding (one at a time: QEMU
   * listens on its VNC socket with a backlog of one), lets the VM run, and expects each to end
   * on QEMU's final picture, at 640x400 (mode 13h) with at least `finalLit` lit pixels.
   */
  async function followModeChanges(
    name: string,
    code: number[],
    encodings: EncodingName[],
    finalLit: number,
    options: { starveEncoder?: boolean } = {},
  ): Promise<void> {
    const vm = await startVm(name, '', [
      '-S',
      '-drive',
      `file=${await bootDisk(name, code)},format=raw,if=ide`,
      '-name',
      `${name},debug-threads=on`,
    ]);
    if (options.starveEncoder) await starveVncEncoder(vm.process.pid);
    const sessions = [];
    for (const encoding of encodings) {
      const fb = new Framebuffer(1, 1);
      const client = await RfbConsoleClient.connect(dial(vm), fb, { encodings: [encoding, 'raw'] });
      const sizes = [`${fb.width}x${fb.height}`];
      fb.on('resize', (w, h) => sizes.push(`${w}x${h}`));
      client.on('close', (err) => sizes.push(`closed: ${err?.message}`));
      sessions.push({ encoding, fb, client, sizes });
    }
    await vm.qmp.execute('cont');
    try {
      for (const { encoding, fb, client, sizes } of sessions) {
        const about = () =>
          `${encoding}: ${sizes.length} sizes, the last ${sizes.slice(-3).join(', ')}, seen ${[...client.encodingsSeen].join(', ')}`;
        await expectScreendump(vm, fb, finalLit, about);
        expect(fb.width, encoding).toBe(640);
        expect(fb.height).toBe(400);
        expect(sizes.length, about()).toBeGreaterThan(1);
        expect([...client.encodingsSeen].some((name) => name.endsWith('desktop-size'))).toBe(true);
        expect([...client.encodingsSeen]).toContain(encoding);
      }
    } finally {
      for (const { client } of sessions) client.close();
      await vm.process.stop();
    }
  }

  /**
   * Pins QEMU's threads to one CPU and gives its VNC encoding thread only that CPU's idle time:
   * while the guest's CPU thread runs, every client's update job waits in the queue (a busy
   * host, widened). A mode change then aborts the jobs that have not started.
   */
  async function starveVncEncoder(pid: number): Promise<void> {
    const ours = /:\s*([0-9]+)/.exec(execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' }))?.[1] ?? '0';
    execFileSync('taskset', ['-a', '-c', '-p', ours, String(pid)], { stdio: 'ignore' });
    let found = false;
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      if ((await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')).trim() !== 'vnc_worker') continue;
      execFileSync('chrt', ['--idle', '-p', '0', tid], { stdio: 'ignore' });
      found = true;
    }
    expect(found, "QEMU's vnc_worker thread").toBe(true);
  }

  const EVERY_ENCODING: EncodingName[] = ['raw', 'hextile', 'zrle', 'zlib', 'tight'];

  it(
    "follows QEMU through two mode changes (640x480, BIOS 720x400, a boot sector's VGA mode 13h at 640x400) in every encoding",
    () => followModeChanges('modes', [...MODE_13H, ...PAINT, ...HALT], EVERY_ENCODING, 10_000),
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'keeps following a guest that changes video mode as fast as it can, with five clients (QEMU drops a client that asks twice while its job waits)',
    () => {
      // mov bp,400; again: mode 13h, paint, text mode; dec bp; jnz again; then mode 13h painted white, halted.
      const body = [...MODE_13H, ...PAINT, ...TEXT_MODE, 0x4d]; // ...; dec bp
      const loop = [0xbd, 0x90, 0x01, ...body, 0x75, 0x100 - body.length - 2]; // ...; jnz again
      const code = [...loop, ...MODE_13H, ...PAINT_WHITE, ...HALT];
      return followModeChanges('flipping', code, ['tight', 'tight', 'zrle', 'tight', 'tight'], 640 * 400, { starveEncoder: true });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'VNC authentication: the right password connects, a wrong one or none is refused with one clear line',
    async () => {
      const vm = await startVm('locked', ',password=on');
      try {
        await vm.qmp.execute('change-vnc-password', { password: 'secret1' });
        const fb = new Framebuffer(1, 1);
        const client = await RfbConsoleClient.connect(dial(vm), fb, { password: 'secret1' });
        await client.nextUpdate();
        expect(fb.width).toBeGreaterThan(0);
        client.close();
        const wrong = await failure(RfbConsoleClient.connect(dial(vm), new Framebuffer(1, 1), { password: 'secret2' }));
        expect(wrong.message).toBe('VNC authentication failed: wrong password');
        const none = await failure(RfbConsoleClient.connect(dial(vm), new Framebuffer(1, 1)));
        expect(none.message).toBe('RFB server asks for a VNC password and none was given');
        expect(`${wrong.message} ${none.message}`).not.toContain('secret');
      } finally {
        await vm.process.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
