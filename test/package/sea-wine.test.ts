// The Windows executable (dist/bin/vconsole-win-x64.exe) run under wine: issue 30's smoke set,
// and what Windows does differently (Program Files, %APPDATA%, rundll32 for the browser,
// taskkill for viewer trees, Windows pipes).
//
// Needs Debian's wine64 (8.0; /usr/lib/wine/wine64, off PATH; VCONSOLE_WINE names another) and
// `npm run package`'s executable and cached Node.js for Windows. Skips with the reason when one
// is missing, unless VCONSOLE_SEA_WINE=required (CI), where it fails instead. How wine is driven
// (one prefix, stdio as files) is in ./support/wine.ts.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { pollFor } from '../e2e/support/poll.js';
import { startKubevirtFixture } from '../fixtures/kubevirt-api.js';
import { FIXTURE_USER, startOpenStackFixture } from '../fixtures/openstack-api.js';
import { startScriptedServer, u32 } from '../support/fake-rfb-server.js';
import { probeRfb } from '../support/rfb-client.js';
import {
  EXE,
  interruptAndWait,
  processesWith,
  readGreeting,
  ROOT,
  toWindowsPath,
  WINDOWS_NODE,
  WINE,
  WINE_SKIP_REASON,
  WinePrefix,
} from './support/wine.js';

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const required = process.env.VCONSOLE_SEA_WINE === 'required';
const runnable = process.platform === 'linux' && process.arch === 'x64' && WINE_SKIP_REASON === undefined;
if (!runnable && !required) console.warn(`sea-wine: skipping the Windows executable under wine: ${WINE_SKIP_REASON ?? 'needs linux-x64'}`);

/** The Program Files layout the Windows installers of the four viewers make (empty files). */
const PROGRAM_FILES = [
  'TigerVNC/vncviewer.exe',
  'RealVNC/VNC Viewer/vncviewer.exe',
  'VirtViewer v11.0-256/bin/remote-viewer.exe',
  'TightVNC/tvnviewer.exe',
].map((file) => `Program Files/${file}`);

/**
 * Run by the Windows Node.js: starts the program in argv with stdin, stdout and stderr as
 * Windows pipes (what `a | b` in cmd or PowerShell gives), writes `input`, closes stdin once
 * `until` came back, and prints the exit code and output as one JSON line.
 */
const PIPE_DRIVER = `const { spawn } = require('child_process');
const [program, input, until, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: 'pipe' });
let out = '';
let err = '';
child.stdout.on('data', (chunk) => { out += chunk; if (out.includes(until)) child.stdin.end(); });
child.stderr.on('data', (chunk) => { err += chunk; });
child.stdin.write(input);
child.on('exit', (code) => require('fs').writeSync(1, JSON.stringify({ code, out, err }) + '\\n'));
`;

/**
 * Preload (through NODE_OPTIONS, which vconsole passes on to its viewer) that makes the Windows
 * Node.js copied over vncviewer.exe behave like a viewer: it starts a child of its own, records
 * its address argument, and stays running like a window until it is ended.
 */
function fakeViewerPreload(startedFile: string, plantedFile: string): string {
  return [
    'if (/taskkill\\.exe$/i.test(process.execPath)) {',
    `  require('fs').writeFileSync(${JSON.stringify(toWindowsPath(plantedFile))}, process.argv.slice(1).join(' '));`,
    '  process.exit(0);',
    '}',
    'if (/vncviewer\\.exe$/i.test(process.execPath)) {',
    "  const address = process.argv[process.argv.length - 1].split('\\\\').pop();",
    "  require('child_process').spawn(process.execPath, ['-e', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)', address + '-child'],",
    "    { env: { ...process.env, NODE_OPTIONS: '' }, stdio: 'ignore' });",
    `  require('fs').writeFileSync(${JSON.stringify(toWindowsPath(startedFile))}, address);`,
    '  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);',
    '}',
  ].join('\n');
}

describe.skipIf(!runnable && !required)('Windows executable under wine (win-x64)', () => {
  let wine: WinePrefix;
  beforeAll(() => {
    expect(WINE_SKIP_REASON, WINE_SKIP_REASON).toBeUndefined();
    wine = new WinePrefix();
    wine.create(PROGRAM_FILES);
    expect(readFileSync(path.join(wine.dir, 'system.reg'), 'latin1')).toContain('"ProductName"="Microsoft Windows 10"');
  }, 300_000);

  afterAll(() => wine?.close());

  it('prints its version, and with --verbose the embedded Node.js and win32-x64', () => {
    const short = wine.run(EXE, ['--version']);
    expect(short.status, short.stderr).toBe(0);
    expect(short.stdout.trim()).toBe(VERSION);
    const verbose = wine.run(EXE, ['version', '--verbose']);
    expect(verbose.status, verbose.stderr).toBe(0);
    expect(verbose.stdout).toContain('embedded Node.js v22.23.3');
    expect(verbose.stdout).toContain('platform win32-x64');
  });

  it('finds TigerVNC, RealVNC, virt-viewer and TightVNC where their Windows installers put them', () => {
    const run = wine.run(EXE, ['viewers', '--json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      os: string;
      viewers: Array<{ id: string; path: string; version: string | null }>;
      selected: { id: string } | null;
    };
    expect(report.os).toBe('win32');
    expect(report.viewers.map((v) => [v.id, v.path])).toEqual([
      ['remote-viewer', 'C:\\Program Files\\VirtViewer v11.0-256\\bin\\remote-viewer.exe'],
      ['tigervnc', 'C:\\Program Files\\TigerVNC\\vncviewer.exe'],
      ['realvnc', 'C:\\Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe'],
      ['tightvnc', 'C:\\Program Files\\TightVNC\\tvnviewer.exe'],
    ]);
    expect(report.viewers[0].version).toBe('11.0-256');
    expect(report.selected?.id).toBe('remote-viewer');
  });

  it('serves the demo screen through `proxy` to a real RFB client, and exits 0 on SIGINT', async () => {
    const proxy = wine.start(EXE, ['proxy', 'demo:vm-a']);
    try {
      const [line] = await proxy.lines(1);
      const listening = JSON.parse(line) as { target: string; address: string; port: number; type: string };
      expect(listening).toMatchObject({ target: 'demo:vm-a', address: '127.0.0.1', type: 'vnc' });
      const probe = await probeRfb(net.connect(listening.port, '127.0.0.1'), { readFrame: true, timeoutMs: 30_000 });
      expect(probe).toMatchObject({ version: '3.8', width: 800, height: 600 });
      expect(probe.frame?.length).toBe(800 * 600 * 4);
      expect(await interruptAndWait(proxy.child)).toEqual({ code: 0, signal: null });
    } finally {
      proxy.child.kill('SIGKILL');
    }
  });

  it('proxies a tcp:// console to a real RFB client', async () => {
    const upstream = await startScriptedServer(async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.write([1, 1]);
      await peer.read(1);
      peer.write(u32(0));
      await peer.read(1);
      peer.write(encodeServerInit(64, 48, 'tcp-under-wine'));
      await new Promise((resolve) => peer.socket.once('close', resolve));
    });
    const proxy = wine.start(EXE, ['proxy', `tcp://127.0.0.1:${upstream.port}`]);
    try {
      const [line] = await proxy.lines(1);
      const { port } = JSON.parse(line) as { port: number };
      const probe = await probeRfb(net.connect(port, '127.0.0.1'), { timeoutMs: 30_000 });
      expect(probe).toMatchObject({ width: 64, height: 48, name: 'tcp-under-wine' });
      expect(await interruptAndWait(proxy.child)).toEqual({ code: 0, signal: null });
      expect(upstream.failures).toEqual([]);
    } finally {
      proxy.child.kill('SIGKILL');
      await upstream.close();
    }
  });

  it('proxies KubeVirt and OpenStack targets (the fixtures) to RFB clients', async () => {
    const kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a' }] });
    const openstack = await startOpenStackFixture();
    const clouds = path.join(wine.scratch, 'clouds.yaml');
    writeFileSync(
      clouds,
      `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n` +
        '      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n',
    );
    const proxy = wine.start(EXE, ['proxy', 'vm-a', 'os:web-1', '--cloud', 'fixture'], {
      KUBECONFIG: kubevirt.kubeconfigPath(),
      OS_CLIENT_CONFIG_FILE: clouds,
    });
    try {
      const lines = (await proxy.lines(2)).map((line) => JSON.parse(line) as { target: string; port: number });
      expect(lines.map((line) => line.target).sort()).toEqual(['default/vm-a', 'openstack:web-1 (cloud fixture)']);
      for (const line of lines) expect(await readGreeting(line.port, 12)).toBe('RFB 003.008\n');
      expect(await interruptAndWait(proxy.child)).toEqual({ code: 0, signal: null });
    } finally {
      proxy.child.kill('SIGKILL');
      await kubevirt.close();
      await openstack.close();
    }
  });

  it("attaches the demo's serial shell with `console`, stdin from a file, and ends at its end", () => {
    const run = wine.run(EXE, ['console', 'demo:vm-c#serial'], { input: 'hostname\r' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('root@vm-c:~# hostname\r\nvm-c\r\n');
  });

  it('writes a PNG with `screenshot -o`, to a Unix path and to a C:\\ path', () => {
    const unixPath = path.join(wine.scratch, 'vm-a.png');
    const unix = wine.run(EXE, ['screenshot', 'demo:vm-a', '-o', unixPath]);
    expect(unix.status, unix.stderr).toBe(0);
    expect(readFileSync(unixPath).subarray(1, 4).toString('latin1')).toBe('PNG');

    const windows = wine.run(EXE, ['screenshot', 'demo:vm-a', '-o', 'C:\\users\\vm-a.png']);
    expect(windows.status, windows.stderr).toBe(0);
    expect(readFileSync(wine.driveC('users/vm-a.png')).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('is fed and read through Windows pipes by `console`, and ends when its stdin closes', () => {
    const driver = path.join(wine.scratch, 'pipe-driver.cjs');
    writeFileSync(driver, PIPE_DRIVER);
    const run = wine.run(WINDOWS_NODE, [
      toWindowsPath(driver),
      toWindowsPath(EXE),
      'hostname\r',
      'vm-c\r\n',
      'console',
      'demo:vm-c#serial',
    ]);
    expect(run.status, run.stderr).toBe(0);
    const piped = JSON.parse(run.stdout) as { code: number; out: string; err: string };
    expect(piped.code, piped.err).toBe(0);
    expect(piped.out).toContain('root@vm-c:~# hostname\r\nvm-c\r\n');
  });

  // Wine 8 hands a Unix pipe to a Windows program as a pipe handle libuv cannot open. Plain
  // Node.js for Windows fails exactly like vconsole, so this is wine's, not vconsole's: the
  // reason the runs here use files, and Windows pipes above. A wine that passes this breaks it.
  it('fails on a Unix pipe as stdout exactly like plain Node.js for Windows does (wine 8: open EBADF)', () => {
    const env = wine.env();
    const plain = spawnSync(WINE!, [WINDOWS_NODE, '-e', 'console.log(1)'], { env, encoding: 'utf8', timeout: 90_000 });
    const ours = spawnSync(WINE!, [EXE, 'viewers', '--json'], { env, encoding: 'utf8', timeout: 90_000 });
    for (const run of [plain, ours]) {
      const hint = 'this wine passes Unix pipes: give the runs here pipes and drop this test';
      expect(run.status, hint).not.toBe(0);
      expect(run.stderr, hint).toContain('Error: open EBADF');
    }
    expect(wine.run(WINDOWS_NODE, ['-e', 'console.log(1)']).stdout).toBe('1\n');
  });

  it('reads its config file from %APPDATA%\\vconsole\\config.yaml', () => {
    wine.writeDriveC(`users/${userInfo().username}/AppData/Roaming/vconsole/config.yaml`, 'aliases:\n  shot: demo:vm-b\n');
    const png = path.join(wine.scratch, 'alias.png');
    const run = wine.run(EXE, ['screenshot', 'shot', '-o', png]);
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(png).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('opens the browser viewer through rundll32 url.dll (wine hands the URL to xdg-open)', async () => {
    const bin = path.join(wine.scratch, 'browser-bin');
    const urlFile = path.join(wine.scratch, 'browser-url');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${urlFile}'\n`, { mode: 0o755 });
    const open = wine.start(EXE, ['open', 'demo:vm-a', '--viewer', 'browser', '--no-tui'], { PATH: `${bin}:/usr/bin:/bin` });
    try {
      await open.lines(1);
      const url = await pollFor(() => (existsSync(urlFile) ? readFileSync(urlFile, 'utf8') || undefined : undefined), {
        what: 'the URL at the fake xdg-open',
        timeoutMs: 60_000,
        detail: open.stderr,
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(open.stderr()).toContain('viewer: browser opened');
      expect(await interruptAndWait(open.child)).toEqual({ code: 0, signal: null });
    } finally {
      open.child.kill('SIGKILL');
    }
  });

  // Wine 8's taskkill refuses /T ("argument T not supported", exit 1, nothing ended): vconsole
  // then terminates the viewer itself, and the viewer's child ends because libuv keeps every
  // child in a kill-on-close job object. So what this proves of the tree is the job; the /T
  // command line is checked in src/viewers/process-tree.test.ts.
  it("ends the viewer it started, and the viewer's own child, when `open --no-tui` gets Ctrl+C, with the system's taskkill, not one in the current directory", async () => {
    copyFileSync(WINDOWS_NODE, wine.driveC('Program Files/TigerVNC/vncviewer.exe'));
    // A taskkill.exe where vconsole runs (its current directory, which Windows searches first
    // for a bare name): a Node.js for Windows that only says it was run.
    copyFileSync(WINDOWS_NODE, path.join(wine.scratch, 'taskkill.exe'));
    const planted = path.join(wine.scratch, 'planted-taskkill-ran');
    const started = path.join(wine.scratch, 'viewer-started');
    const preload = path.join(wine.scratch, 'fake-viewer.cjs');
    writeFileSync(preload, fakeViewerPreload(started, planted));
    const open = wine.start(EXE, ['open', 'demo:vm-a', '--viewer', 'tigervnc', '--no-tui'], {
      NODE_OPTIONS: `--require ${toWindowsPath(preload)}`,
    });
    try {
      const { port } = JSON.parse((await open.lines(1))[0]) as { port: number };
      const address = `127.0.0.1::${port}`;
      await pollFor(() => (existsSync(started) && readFileSync(started, 'utf8') === address ? true : undefined), {
        what: 'the viewer',
        timeoutMs: 60_000,
        detail: open.stderr,
      });
      await pollFor(() => (processesWith('vncviewer.exe', `${address}-child`).length === 1 ? true : undefined), {
        what: "the viewer's child",
      });
      expect(await interruptAndWait(open.child)).toEqual({ code: 0, signal: null });
      await pollFor(() => (processesWith('vncviewer.exe', address).length === 0 ? true : undefined), {
        what: 'the viewer and its child to end',
        timeoutMs: 60_000,
      });
      expect(existsSync(planted) ? `the planted taskkill.exe ran: ${readFileSync(planted, 'utf8')}` : 'not run').toBe('not run');
    } finally {
      open.child.kill('SIGKILL');
      rmSync(path.join(wine.scratch, 'taskkill.exe'), { force: true });
    }
  });
});
