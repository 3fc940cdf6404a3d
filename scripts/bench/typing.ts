// Typing speed: `vconsole type` into the VGA console of a real Linux guest under QEMU (TCG), the
// guest built by scripts/guest/build.sh (cached). 1 KB of printable ASCII in lines goes into
// `cat >/tmp/typed`, then md5sum says on the serial line whether every key arrived. The figure is
// characters a second, spawn to exit of the `type` process, counted only when none was lost.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GuestSerial, guestImages, startLinuxGuest } from '../../test/e2e/support/linux-guest.js';
import { ProcessLab, runProgram } from '../../test/e2e/support/processes.js';
import { findExecutable } from '../../test/support/programs.js';
import { result, type BenchResult } from './report.js';

/** The bar: a 1 KB script in seconds, not minutes; a minute for 1 KB is 17 characters a second. */
const TARGET_CHARS_PER_SECOND = 17;

/** `bytes` of printable ASCII in lines, the same every run (a seeded generator). */
function printableLines(bytes: number): string {
  let seed = 38;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const lines: string[] = [];
  for (let size = 0; size < bytes;) {
    const line = Array.from({ length: 20 + (next() % 50) }, () => String.fromCharCode(0x20 + (next() % 95))).join('');
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

export async function measureTyping({ cli, bytes }: { cli: string; bytes: number }): Promise<BenchResult[]> {
  if (!findExecutable('qemu-system-x86_64')) throw new Error('no qemu-system-x86_64 on PATH (scripts/e2e-deps.sh installs it)');
  const images = await guestImages();
  if ('missing' in images) throw new Error(images.missing);
  const lab = new ProcessLab();
  try {
    const dir = await lab.tempDir('bench-type');
    const guest = await startLinuxGuest(lab, images, 'bench-typing', dir);
    const vnc = `unix://${guest.vncPath}`;
    const vconsole = async (...args: string[]) => {
      const run = await runProgram(process.execPath, [cli, ...args], { timeoutMs: 600_000 });
      if (run.code !== 0) throw new Error(`vconsole ${args[0]} failed: ${run.stderr.trim()}`);
    };
    const text = printableLines(bytes);
    const file = join(dir, 'typed.txt');
    await writeFile(file, text);
    await vconsole('type', vnc, '--', 'cat >/tmp/typed\n');
    const started = performance.now();
    await vconsole('type', vnc, '--file', file);
    const seconds = (performance.now() - started) / 1000;
    await vconsole('send', vnc, 'ctrl-d');
    const serial = await GuestSerial.connect(guest.serialPath);
    try {
      const since = serial.mark();
      await vconsole('type', vnc, '--', 'md5sum /tmp/typed >/dev/ttyS0\n');
      const said = await serial.waitFor(/[0-9a-f]{32} {2}\/tmp\/typed/, "md5sum's answer", { timeoutMs: 120_000, since });
      const intact = said.slice(0, 32) === createHash('md5').update(text).digest('hex');
      const charsPerSecond = text.length / seconds;
      return [
        result({
          group: 'typing',
          name: `type ${text.length} characters into a Linux guest's VGA console (QEMU TCG, scancodes), ${intact ? 'no key lost' : 'KEYS LOST'}`,
          value: charsPerSecond,
          unit: 'chars/s',
          target: `>= ${TARGET_CHARS_PER_SECOND}, every key`,
          pass: intact && charsPerSecond >= TARGET_CHARS_PER_SECOND,
        }),
      ];
    } finally {
      await serial.close();
    }
  } finally {
    await lab.cleanup();
  }
}
