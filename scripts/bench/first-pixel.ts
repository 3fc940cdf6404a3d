// Time to first pixel: from running the command to the VM's screen in the viewer's window.
// Under Xvfb started with -fbdir, whose screen is a memory-mapped XWD file the bench reads
// directly (no screenshot process per poll). The console (solid-console.ts) is one colour,
// so "the window shows the console's picture" is: at least half of the console's pixels are
// on the X screen in that colour. Systems alternate round by round; a round ends with the
// command, its viewer and everything they started stopped by pid, and the screen clear again.
import { openSync, readSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { sleep, spawnTracked } from './processes.js';

const SCREEN = { width: 1024, height: 768 };
/** Every STEP-th pixel of every STEP-th row is looked at: a 640x480 picture is ~19 000 samples. */
const STEP = 4;

/** Xvfb on a display it picks (-displayfd), its screen in `dir`/Xvfb_screen0. */
export interface XScreen {
  child: ChildProcess;
  display: string;
  screen: { count(colour: readonly number[]): number; close(): void };
}

export async function startXvfb(dir: string): Promise<XScreen> {
  const child = spawnTracked(
    'Xvfb',
    ['-displayfd', '3', '-fbdir', dir, '-screen', '0', `${SCREEN.width}x${SCREEN.height}x24`, '-nolisten', 'tcp', '-noreset'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  let announced = '';
  (child.stdio[3] as Readable).on('data', (d: Buffer) => (announced += d.toString()));
  const deadline = performance.now() + 30_000;
  while (!/^\d+\n/.test(announced)) {
    if (child.exitCode !== null || performance.now() > deadline) throw new Error('Xvfb did not start');
    await sleep(20);
  }
  return { child, display: `:${announced.trim()}`, screen: openScreen(join(dir, 'Xvfb_screen0')) };
}

/** Counts the pixels of `colour` on the X screen (sampled), reading the XWD file in place. */
function openScreen(file: string): XScreen['screen'] {
  const fd = openSync(file, 'r');
  const header = Buffer.alloc(100);
  readSync(fd, header, 0, 100, 0);
  const headerSize = header.readUInt32BE(0);
  const width = header.readUInt32BE(16);
  const height = header.readUInt32BE(20);
  const bitsPerPixel = header.readUInt32BE(44);
  const bytesPerLine = header.readUInt32BE(48);
  const colours = header.readUInt32BE(76);
  if (bitsPerPixel !== 32) throw new Error(`Xvfb screen has ${bitsPerPixel} bits per pixel, expected 32`);
  const offset = headerSize + colours * 12;
  const pixels = Buffer.alloc(bytesPerLine * height);
  return {
    count([r, g, b]) {
      readSync(fd, pixels, 0, pixels.length, offset);
      let n = 0;
      for (let y = 0; y < height; y += STEP) {
        for (let x = 0, at = y * bytesPerLine; x < width; x += STEP, at += 4 * STEP) {
          // Little-endian 0x00RRGGBB words: B, G, R, unused.
          if (pixels[at + 2] === r && pixels[at + 1] === g && pixels[at] === b) n++;
        }
      }
      return n * STEP * STEP;
    },
    close: () => closeSync(fd),
  };
}

/** Pids of every process below `pid` now (from /proc), deepest last. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the command and everything below it, SIGKILL to what is left after 3 s. */
async function stopTree(child: ChildProcess): Promise<void> {
  const pids = [child.pid ?? 0, ...descendants(child.pid ?? 0)];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const deadline = performance.now() + 3000;
  while (pids.some(alive) && performance.now() < deadline) await sleep(20);
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * One run: spawns `command args` with DISPLAY set, polls the screen every 5 ms until `need`
 * pixels of `colour` show. Resolves with the milliseconds it took; stops the command after.
 */
export async function timeToFirstPixel({
  x,
  command,
  args,
  env,
  colour,
  need,
  timeoutMs = 30_000,
}: {
  x: XScreen;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  colour: readonly number[];
  need: number;
  timeoutMs?: number;
}): Promise<number> {
  if (x.screen.count(colour) !== 0) throw new Error('the screen is not clear before the run');
  let stderr = '';
  const start = performance.now();
  const child = spawnTracked(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, DISPLAY: x.display, NO_AT_BRIDGE: '1', GDK_BACKEND: 'x11' },
  });
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  try {
    for (;;) {
      if (x.screen.count(colour) >= need) return performance.now() - start;
      if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}) before the picture showed: ${stderr}`);
      if (performance.now() - start > timeoutMs) throw new Error(`${command}: no picture after ${timeoutMs} ms: ${stderr}`);
      await sleep(5);
    }
  } finally {
    await stopTree(child);
    const clear = performance.now() + 10_000;
    while (x.screen.count(colour) !== 0 && performance.now() < clear) await sleep(20);
  }
}
