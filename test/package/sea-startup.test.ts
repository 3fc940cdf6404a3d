// What keeps the single executable's start-up small (docs/SINGLE-EXECUTABLE.md, "Start-up"):
// the version answered before the CLI is compiled, the CLI compiled from V8's code cache, and a
// bundle that V8 can hold as one-byte text and that carries no code the CLI cannot reach.
//
// The executable test needs dist/bin/vconsole-linux-x64 (`npm run package`) and skips without it,
// unless VCONSOLE_SEA=required. The bundle test needs only esbuild.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const BINARY = path.join(ROOT, 'dist', 'bin', 'vconsole-linux-x64');
const runnable = process.platform === 'linux' && process.arch === 'x64' && (existsSync(BINARY) || process.env.VCONSOLE_SEA === 'required');

const scratch = mkdtempSync(path.join(tmpdir(), 'vconsole-sea-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!runnable)('single executable start-up (linux-x64)', () => {
  it('answers the version without compiling the CLI, and compiles the CLI from the code cache made for it', () => {
    const copy = path.join(scratch, 'vconsole');
    copyFileSync(BINARY, copy);
    const env = { PATH: scratch, HOME: process.env.HOME, VCONSOLE_STARTUP_DEBUG: '1' };

    for (const args of [['--version'], ['-V'], ['version']]) {
      const quick = spawnSync(copy, args, { env, encoding: 'utf8', timeout: 60_000 });
      expect(quick.status, quick.stderr).toBe(0);
      expect(quick.stdout).toBe(`${VERSION}\n`);
      expect(quick.stderr, `${args.join(' ')} compiled the CLI`).toBe('');
    }

    const full = spawnSync(copy, ['version', '--verbose'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(full.status, full.stderr).toBe(0);
    expect(full.stdout).toContain('embedded Node.js');
    expect(full.stderr).toBe('vconsole-startup: code cache accepted\n');
  });

  it('serves proxy demo:x without loading the TLS stack, crypto, http or zlib', async () => {
    const copy = path.join(scratch, 'vconsole-proxy');
    copyFileSync(BINARY, copy);
    // Preloaded through NODE_OPTIONS (the executable honours it): lists the built-ins loaded by the end.
    const hook = path.join(scratch, 'loaded-builtins.cjs');
    writeFileSync(hook, "process.on('exit', () => process.stderr.write('loaded: ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n");
    const child = spawn(copy, ['proxy', 'demo:x'], {
      env: { PATH: scratch, HOME: process.env.HOME, NODE_OPTIONS: `--require=${hook}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('\n')) resolve();
      });
      child.once('exit', () => reject(new Error(`proxy exited before its JSON line: ${stderr}`)));
    });
    expect(JSON.parse(stdout.split('\n')[0])).toMatchObject({ target: 'demo:x' });
    child.kill('SIGINT');
    await exited;
    const line = stderr.split('\n').find((l) => l.startsWith('loaded: '));
    expect(line, stderr).toBeDefined();
    const loaded = (JSON.parse(line!.slice('loaded: '.length)) as string[]).filter((m) => m.startsWith('NativeModule '));
    for (const builtin of ['https', 'tls', 'crypto', 'http', 'zlib']) expect(loaded).not.toContain(`NativeModule ${builtin}`);
    // The same hook sees net, so it did see what loaded.
    expect(loaded).toContain('NativeModule net');
  });
});

describe('the bundle inside the executable', () => {
  it("draws each Ink frame right with Ink's lines kept across frames", () => {
    const entry = path.join(scratch, 'frames.ts');
    writeFileSync(
      entry,
      [
        "import { EventEmitter } from 'node:events';",
        "import React from 'react';",
        "import { Box, Text, render } from 'ink';",
        'class Terminal extends EventEmitter { isTTY = true; columns = 40; rows = 20; frames: string[] = []; write(text: string) { this.frames.push(text); return true; } }',
        'const terminal = new Terminal();',
        "const row = (i: number, lit: number) => React.createElement(Text, { key: i, color: i === lit ? 'green' : undefined, bold: i === lit }, `row ${i} ${i === lit ? 'lit' : 'dim'}`);",
        "const view = (lit: number) => React.createElement(Box, { flexDirection: 'column' }, [0, 1, 2].map((i) => row(i, lit)));",
        'const app = render(view(0), { stdout: terminal as never, debug: true, patchConsole: false, exitOnCtrlC: false });',
        'for (const lit of [1, 2, 0, 1, 2, 0]) app.rerender(view(lit));',
        'app.unmount();',
        "process.stdout.write(JSON.stringify(terminal.frames) + '\\n');",
      ].join('\n'),
    );
    const outfile = path.join(scratch, 'frames.cjs');
    const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), '--entry', entry, '--outfile', outfile], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(built.status, built.stderr).toBe(0);
    const ran = spawnSync(process.execPath, [outfile], { env: { ...process.env, FORCE_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 });
    expect(ran.status, ran.stderr).toBe(0);
    const frames = (JSON.parse(ran.stdout) as string[]).filter((frame) => frame.includes('row'));
    expect(frames.length).toBeGreaterThanOrEqual(7);
    const lit = [0, 1, 2, 0, 1, 2, 0];
    for (const [n, frame] of frames.slice(0, 7).entries()) {
      const lines = frame.trimEnd().split('\n');
      expect(lines.map((line) => line.replace(/\x1b\[[0-9;]*m/g, ''))).toEqual(
        [0, 1, 2].map((i) => `row ${i} ${i === lit[n] ? 'lit' : 'dim'}`),
      );
      // Only the lit row carries green and bold: no styled characters leak from earlier frames.
      for (const [i, line] of lines.entries())
        expect(/\x1b\[(32|1)m/.test(line), `frame ${n} row ${i}: ${JSON.stringify(line)}`).toBe(i === lit[n]);
    }
  });

  it("is ASCII only, without React development builds, with Ink's lines kept across frames, and under 3 MiB", () => {
    const outfile = path.join(scratch, 'vconsole.cjs');
    const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), '--outfile', outfile], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(built.status, built.stderr).toBe(0);
    const text = readFileSync(outfile, 'latin1');
    // One non-ASCII character makes V8 keep the whole script as two-byte text: twice the heap.
    const nonAscii = /[^\x00-\x7f]/.exec(text);
    expect(nonAscii && text.slice(Math.max(0, nonAscii.index - 40), nonAscii.index + 10)).toBeNull();
    // A warning only react-reconciler's development build carries.
    expect(text.includes('Cannot update a component'), "react-reconciler's development build is in the bundle").toBe(false);
    // Ink's lines kept across frames (scripts/bundle.mjs inkLinesAcrossFrames; keepNames keeps the name).
    expect(text.includes('styledCharsAcrossFrames'), "Ink's output is not patched").toBe(true);
    // 5.4 MiB with all of @kubernetes/client-node's generated APIs; 2.4 MiB without them in wave 2,
    // 3.1 MiB once libvirt (fast-xml-parser), Proxmox VE, --via, TLS (@peculiar/x509) and Tight's
    // JPEG (jpeg-js) came in: the bound catches the generated APIs coming back, not growth by features.
    expect(statSync(outfile).size).toBeLessThan(4 * 1024 * 1024);
  });
});
