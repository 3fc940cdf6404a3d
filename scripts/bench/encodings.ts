// Bytes and CPU per frame (a whole screen's worth of updated pixels) in each encoding from the hub (`proxy --share`) against QEMU's own
// VNC server, the same client (scripts/bench/wire-frames.ts) asking each for the same encoding,
// on two real QEMU consoles: SeaBIOS's text screen (720x400, full frames asked for again and
// again) and a churning one (a boot sector this file writes redraws all of VGA mode 13h's
// 320x200 256-colour screen with a moving pattern, as fast as it can; incremental frames).
// CPU is the machine's marginal cost of the client: QEMU's and the hub's CPU while it is
// served, less what both spend meanwhile without it (QEMU emulates the guest, the hub keeps
// its own picture of the console either way).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, sleep, spawnTracked, startProcess, stop } from './processes.js';
import { result, type BenchResult } from './report.js';
import { WIRE_ENCODING, connectWire } from './wire-frames.js';

/** Mode 13h, then forever: every pixel of A000:0000 = (its offset + a counter), the counter one up a pass. */
const CHURN_BOOT_SECTOR = [
  [0xb8, 0x13, 0x00], // mov ax, 0x0013
  [0xcd, 0x10], // int 0x10
  [0xb8, 0x00, 0xa0], // mov ax, 0xa000
  [0x8e, 0xc0], // mov es, ax
  [0x31, 0xff], // pass: xor di, di
  [0xb9, 0x00, 0xfa], // mov cx, 64000
  [0x89, 0xf8], // pixel: mov ax, di
  [0x00, 0xd8], // add al, bl
  [0xaa], // stosb
  [0xe2, 0xf9], // loop pixel
  [0xfe, 0xc3], // inc bl
  [0xeb, 0xf0], // jmp pass
].flat();

function bootImage(file: string): void {
  const sector = Buffer.alloc(512);
  Buffer.from(CHURN_BOOT_SECTOR).copy(sector);
  sector[510] = 0x55;
  sector[511] = 0xaa;
  writeFileSync(file, sector);
}

async function freePort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (port > 5900 && port < 5900 + 65000) return port;
  }
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

interface Case {
  label: string;
  encodings: number[];
}

const CASES: Case[] = [
  { label: 'Raw', encodings: [WIRE_ENCODING.raw] },
  { label: 'Hextile', encodings: [WIRE_ENCODING.hextile, WIRE_ENCODING.raw] },
  { label: 'ZRLE', encodings: [WIRE_ENCODING.zrle, WIRE_ENCODING.raw] },
  // TigerVNC's defaults: compress level 2, JPEG quality 8; without a quality, no JPEG.
  { label: 'Tight', encodings: [WIRE_ENCODING.tight, WIRE_ENCODING.raw, -256 + 2] },
  { label: 'Tight JPEG 8', encodings: [WIRE_ENCODING.tight, WIRE_ENCODING.raw, -256 + 2, -32 + 8] },
];

interface Served {
  bytesPerFrame: number;
  cpuMsPerFrame: number;
  frames: number;
}

/** One client for `seconds`: frames, bytes and the marginal CPU of QEMU and the hub. */
async function serve(
  port: number,
  c: Case,
  incremental: boolean,
  seconds: number,
  pids: number[],
  idleCpuPerSecond: number,
): Promise<Served> {
  const client = await connectWire(port, c.encodings);
  try {
    await client.frame(false);
    const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const bytes0 = client.bytes;
    const pixels0 = client.pixels;
    const cpu0 = cpu();
    const start = performance.now();
    let frames = 0;
    while (performance.now() - start < seconds * 1000) {
      await client.frame(incremental);
      frames += 1;
    }
    const elapsed = (performance.now() - start) / 1000;
    const marginal = Math.max(0, cpu() - cpu0 - idleCpuPerSecond * elapsed);
    // Frames are counted as whole screens: a server that sends part of the screen in a frame is not thereby smaller.
    const screens = (client.pixels - pixels0) / (client.width * client.height);
    return { bytesPerFrame: (client.bytes - bytes0) / screens, cpuMsPerFrame: (marginal * 1000) / screens, frames };
  } finally {
    client.close();
  }
}

async function measureConsole(cli: string, dir: string, name: 'text' | 'churning', seconds: number): Promise<BenchResult[]> {
  const port = await freePort();
  const vnc = join(dir, `${name}.vnc.sock`);
  const args = ['-name', name, '-machine', 'accel=tcg', '-m', '64', '-nodefaults', '-vga', 'std', '-display', 'none'];
  if (name === 'churning') {
    bootImage(join(dir, 'churn.img'));
    args.push('-drive', `file=${join(dir, 'churn.img')},format=raw,if=ide`);
  }
  args.push('-vnc', `unix:${vnc}`, '-vnc', `127.0.0.1:${port - 5900}`);
  const qemu = spawnTracked('qemu-system-x86_64', args);
  try {
    const deadline = performance.now() + 60_000;
    while (!(await canConnect(port))) {
      if (performance.now() > deadline) throw new Error(`QEMU (${name}) did not listen`);
      await sleep(100);
    }
    // SeaBIOS prints its last line after a few seconds (no bootable disk); the churn starts at boot.
    await sleep(5000);
    const hub = await startProcess<{ port: number }>(process.execPath, [cli, 'proxy', `unix://${vnc}`, '--share'], {
      parse: JSON.parse,
      timeoutMs: 60_000,
    });
    try {
      const pids = [qemu.pid ?? 0, hub.pid];
      const idle0 = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
      await sleep(seconds * 1000);
      const idleCpuPerSecond = (pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - idle0) / seconds;
      const out: BenchResult[] = [];
      const incremental = name === 'churning';
      for (const c of CASES) {
        const direct = await serve(port, c, incremental, seconds, pids, idleCpuPerSecond);
        const viaHub = await serve(hub.lines[0].port, c, incremental, seconds, pids, idleCpuPerSecond);
        const ratio = viaHub.bytesPerFrame / direct.bytesPerFrame;
        const what = `${name} console, ${c.label}`;
        out.push(
          result({
            group: 'encodings',
            name: `${what}: bytes per frame, hub`,
            value: viaHub.bytesPerFrame / 1024,
            unit: 'KiB',
            digits: 2,
            reference: `QEMU ${(direct.bytesPerFrame / 1024).toFixed(2)} KiB (${direct.frames} and ${viaHub.frames} frames)`,
            ratio,
            target: '<= 1.00x',
            pass: ratio <= 1,
          }),
          result({
            group: 'encodings',
            name: `${what}: CPU per frame, hub`,
            value: viaHub.cpuMsPerFrame,
            unit: 'ms',
            digits: 2,
            reference: `QEMU ${direct.cpuMsPerFrame.toFixed(2)} ms`,
          }),
        );
      }
      return out;
    } finally {
      await stop(hub.child);
    }
  } finally {
    await stop(qemu);
  }
}

/** The `encodings` group: both consoles, every encoding, QEMU's server and the hub. */
export async function measureEncodings({ cli, seconds }: { cli: string; seconds: number }): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-encodings-'));
  try {
    return [...(await measureConsole(cli, dir, 'text', seconds)), ...(await measureConsole(cli, dir, 'churning', seconds))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
