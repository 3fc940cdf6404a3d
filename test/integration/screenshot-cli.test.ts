import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { BACKGROUND, DemoScreen } from '../../src/rfb/demo/screen.js';
import type { Rect } from '../../src/rfb/wire/geometry.js';
import { VCONSOLE_BIN, runVconsole } from '../support/cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vconsole-shot-'));

/** The RGB of a pixel of a decoded PNG. */
const rgb = (png: PNG, x: number, y: number) => {
  const at = (y * png.width + x) * 4;
  return (png.data[at] << 16) | (png.data[at + 1] << 8) | png.data[at + 2];
};

/** True when `rect` of the PNG holds exactly the demo screen's pixels there. */
function matchesDemo(png: PNG, screen: DemoScreen, rect: Rect): boolean {
  for (let y = rect.y; y < rect.y + rect.h; y++) {
    for (let x = rect.x; x < rect.x + rect.w; x++) {
      const at = (y * screen.width + x) * 4;
      const expected = (screen.pixels[at + 2] << 16) | (screen.pixels[at + 1] << 8) | screen.pixels[at];
      if (rgb(png, x, y) !== expected) return false;
    }
  }
  return true;
}

/** Runs vconsole keeping stdout as bytes (a PNG). */
async function runForBytes(args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const child = spawn(process.execPath, [VCONSOLE_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out), stderr };
}

describe('vconsole screenshot', () => {
  it('writes a PNG of the demo console with its pixels', async () => {
    const file = path.join(dir, 'a.png');
    const result = await runVconsole(['screenshot', 'demo:vm-a', '-o', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`demo:vm-a: wrote ${file}\n`);
    expect(result.stdout).toBe('');
    const png = PNG.sync.read(readFileSync(file));
    expect([png.width, png.height]).toEqual([800, 600]);
    const screen = new DemoScreen('vm-a', 800, 600);
    expect(rgb(png, 5, 599)).toBe(BACKGROUND);
    // Everything but the clock, which ticks, is the demo server's picture to the pixel.
    const clock = screen.lineBand('clock');
    expect(matchesDemo(png, screen, { x: 0, y: 0, w: 800, h: clock.y })).toBe(true);
    expect(matchesDemo(png, screen, { x: 0, y: clock.y + clock.h, w: 800, h: 600 - clock.y - clock.h })).toBe(true);
  });

  it('writes the PNG alone to stdout with -o -', async () => {
    const result = await runForBytes(['screenshot', 'demo:vm-a', '-o', '-']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const png = PNG.sync.read(result.stdout);
    expect([png.width, png.height, rgb(png, 5, 599)]).toEqual([800, 600, BACKGROUND]);
  });

  it('names one file per target in a directory', async () => {
    const out = mkdtempSync(path.join(dir, 'many-'));
    const result = await runVconsole(['screenshot', 'demo:vm-a', 'demo:vm-b', '-o', out]);
    expect(result.code).toBe(0);
    for (const name of ['demo_vm-a.png', 'demo_vm-b.png']) {
      expect(PNG.sync.read(readFileSync(path.join(out, name))).width).toBe(800);
      expect(result.stderr).toContain(path.join(out, name));
    }
  });

  it('creates the directory -o names with a trailing slash, or that several targets share, private', async () => {
    const slashed = path.join(dir, 'new-shots', 'nested') + '/';
    const one = await runVconsole(['screenshot', 'demo:vm-a', '-o', slashed]);
    expect(one.code, one.stderr).toBe(0);
    expect(PNG.sync.read(readFileSync(path.join(slashed, 'demo_vm-a.png'))).width).toBe(800);
    expect(statSync(slashed).mode & 0o777).toBe(0o700);
    const shared = path.join(dir, 'several');
    const many = await runVconsole(['screenshot', 'demo:vm-a', 'demo:vm-b', '-o', shared]);
    expect(many.code, many.stderr).toBe(0);
    expect(readdirSync(shared).sort()).toEqual(['demo_vm-a.png', 'demo_vm-b.png']);
    // Several targets and an existing file: a usage error, nothing dialled.
    const file = path.join(dir, 'a-file.png');
    writeFileSync(file, '');
    const onFile = await runVconsole(['screenshot', 'demo:vm-a', 'demo:vm-b', '-o', file]);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toMatch(/^vconsole: -o .*a-file\.png is not a directory/);
    const slashedFile = await runVconsole(['screenshot', 'demo:vm-a', '-o', `${file}/`]);
    expect(slashedFile.code).toBe(2);
    expect(slashedFile.stderr).toMatch(
      /^vconsole: -o .*a-file\.png\/ is not a directory; give a directory, or the file without the trailing \//,
    );
  });

  it('refuses a serial console, an unknown scheme and several targets on stdout as usage errors', async () => {
    for (const args of [['demo:vm-a#serial'], ['nope://x'], ['demo:vm-a', 'demo:vm-b', '-o', '-']]) {
      const result = await runVconsole(['screenshot', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toMatch(/^vconsole: /);
    }
  });

  it('--help does not offer --preserve-session, which screenshot does without asking', async () => {
    const result = await runVconsole(['screenshot', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--take-over/);
    expect(result.stdout).not.toMatch(/--preserve-session/);
  });

  it('says which target could not be written, in one line, and exits 1', async () => {
    const result = await runVconsole(['screenshot', 'demo:vm-a', '-o', path.join(dir, 'no-such-dir', 'x.png')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vconsole: demo:vm-a: cannot write .*x\.png/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
