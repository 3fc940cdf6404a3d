// Bytes a viewer is sent while QEMU's text console scrolls (QEMU sends the scrolled rows again
// as pixels), through the hub (`proxy --share`), asking with and without CopyRect: both
// viewers at once, so both see the same scrolls. A boot sector prints a line of text every
// 100 ms (BIOS teletype, so the screen scrolls a line at a time). Bytes only, no timing:
// `npm run build && npx tsx scripts/bench/scroll-text.ts [seconds]`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep, spawnTracked, startProcess, stop } from './processes.js';
import { WIRE_ENCODING, connectWire, type WireClient } from './wire-frames.js';

/**
 * For ever: line n (8 + n % 64 letters, from 'A' + n on) by int 10h teletype, CR LF, then
 * int 15h AH=86h waits 100 ms (assembled from 16-bit code: xor bx,bx; line: ...; jmp line).
 */
const SCROLL_BOOT_SECTOR = [
  0x31, 0xdb, 0x88, 0xd9, 0x80, 0xe1, 0x3f, 0x80, 0xc1, 0x08, 0x30, 0xed, 0x30, 0xd2, 0x88, 0xd0, 0x00, 0xd8, 0x24, 0x1f, 0x04, 0x41, 0xb4,
  0x0e, 0xcd, 0x10, 0xfe, 0xc2, 0xe2, 0xf0, 0xb8, 0x0d, 0x0e, 0xcd, 0x10, 0xb8, 0x0a, 0x0e, 0xcd, 0x10, 0xfe, 0xc3, 0xb8, 0x00, 0x86, 0xb9,
  0x01, 0x00, 0xba, 0xa0, 0x86, 0xcd, 0x15, 0xeb, 0xcb,
];

async function keepAsking(client: WireClient, until: () => boolean): Promise<void> {
  while (!until()) await client.frame(true);
}

const seconds = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'vconsole-scroll-'));
const sector = Buffer.alloc(512);
Buffer.from(SCROLL_BOOT_SECTOR).copy(sector);
sector.writeUInt16LE(0xaa55, 510);
writeFileSync(join(dir, 'scroll.img'), sector);
const vnc = join(dir, 'vnc.sock');
const qemu = spawnTracked('qemu-system-x86_64', [
  ...['-machine', 'accel=tcg', '-m', '64', '-nodefaults', '-vga', 'std', '-display', 'none'],
  ...['-drive', `file=${join(dir, 'scroll.img')},format=raw,if=ide`, '-vnc', `unix:${vnc}`],
]);
try {
  // The guest is scrolling once the BIOS has handed over.
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(vnc);
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
  for (let tries = 0; !(await listening()); tries++) {
    if (tries > 600) throw new Error('QEMU did not listen');
    await sleep(100);
  }
  await sleep(5000);
  const hub = await startProcess<{ port: number }>(process.execPath, ['bin/vconsole.js', 'proxy', `unix://${vnc}`, '--share'], {
    parse: JSON.parse,
    timeoutMs: 60_000,
  });
  try {
    const cases = [
      ['Raw', [WIRE_ENCODING.raw]],
      ['ZRLE', [WIRE_ENCODING.zrle, WIRE_ENCODING.raw]],
    ] as const;
    const clients = await Promise.all(
      cases.flatMap(([, encodings]) => [
        connectWire(hub.lines[0].port, encodings),
        connectWire(hub.lines[0].port, [WIRE_ENCODING.copyRect, ...encodings]),
      ]),
    );
    await Promise.all(clients.map((client) => client.frame(false)));
    const start = clients.map((client) => client.bytes);
    let done = false;
    const asking = Promise.all(clients.map((client) => keepAsking(client, () => done)));
    await sleep(seconds * 1000);
    done = true;
    await asking;
    cases.forEach(([label], i) => {
      const [plain, copies] = [clients[2 * i].bytes - start[2 * i], clients[2 * i + 1].bytes - start[2 * i + 1]];
      console.log(
        `${label}: ${plain} bytes without CopyRect, ${copies} with (${(plain / copies).toFixed(1)}x fewer) in ${seconds} s of scrolling`,
      );
    });
    for (const client of clients) client.close();
  } finally {
    await stop(hub.child);
  }
} finally {
  await stop(qemu);
  rmSync(dir, { recursive: true, force: true });
}
