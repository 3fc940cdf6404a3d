import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Framebuffer } from '../../src/rfb/framebuffer.js';
import { RfbUpstream, type EncodingName } from '../../src/rfb/upstream-client.js';
import { countLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, type RunningProcess } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';

// vconsole's own RFB client (the hub's upstream side) against QEMU's VNC server: what it
// decodes must be QEMU's framebuffer exactly, in every encoding QEMU offers.
const gate = requireTools(['qemu-system-x86_64']);

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

describe.skipIf(gate.skip)(gatedTitle('RFB upstream client against QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;

  async function startVm(name: string, vncOptions = '', extraArgs: string[] = []): Promise<Vm> {
    const vncPath = join(dir, `${name}.vnc.sock`);
    const qmpPath = join(dir, `${name}.qmp.sock`);
    const args = [
      '-name', name, '-machine', 'accel=tcg', '-m', '64', '-nodefaults', '-vga', 'std', '-display', 'none',
      '-vnc', `unix:${vncPath}${vncOptions}`, '-qmp', `unix:${qmpPath},server=on,wait=off`, ...extraArgs,
    ];
    const process = lab.start(`qemu ${name}`, 'qemu-system-x86_64', args);
    await awaitSocketFile(vncPath, `QEMU ${name}'s VNC socket`, 60_000, () => process.describe());
    return { vncPath, qmp: await Qmp.connect(qmpPath), process };
  }

  function dial(vm: Vm): net.Socket {
    return net.connect(vm.vncPath);
  }

  /** Waits until the decoded picture equals QEMU's screendump (the text cursor blinks meanwhile). */
  async function expectScreendump(vm: Vm, fb: Framebuffer, minLit: number): Promise<RgbImage> {
    let last = '';
    return pollFor(async () => {
      const image = await vm.qmp.screendump(dir);
      const differing = differingPixels(fb, image);
      last = `decoded ${fb.width}x${fb.height}, QEMU ${image.width}x${image.height}, ${differing} pixels differ, ${countLit(image)} lit`;
      return differing === 0 && countLit(image) >= minLit ? image : undefined;
    }, { what: 'the decoded framebuffer to equal QEMU\'s screendump', timeoutMs: 60_000, intervalMs: 200, detail: () => last });
  }

  let bios: Vm;
  const seen: Record<string, string[]> = {};

  beforeAll(async () => {
    dir = await lab.tempDir('rfbup');
    bios = await startVm('bios');
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
    it(`${preference.name}: the decoded BIOS screen (720x400) equals QEMU's screendump pixel for pixel`, async () => {
      const fb = new Framebuffer(1, 1);
      const client = await RfbUpstream.connect(dial(bios), fb, { encodings: preference.encodings });
      try {
        expect(fb.width, 'ServerInit size').toBe(720);
        expect(fb.height).toBe(400);
        expect(fb.name).toBe('QEMU (bios)');
        await client.nextUpdate();
        await expectScreendump(bios, fb, 1_500);
        seen[preference.name] = [...client.encodingsSeen].sort();
        expect([...client.encodingsSeen]).toContain(preference.expect);
        expect(client.supportsQemuKeys).toBe(true);
      } finally {
        client.close();
      }
    }, E2E_TEST_TIMEOUT_MS);
  }
});
