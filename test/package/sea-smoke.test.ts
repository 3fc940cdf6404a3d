// The single executable (`npm run package`) and the bundle it is made from.
//
// The executable tests need dist/bin/vconsole-linux-x64 and skip without it, unless
// VCONSOLE_SEA=required (CI), where a missing binary fails. The bundle tests need only esbuild.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture } from '../fixtures/kubevirt-api.js';
import { FIXTURE_USER, startOpenStackFixture } from '../fixtures/openstack-api.js';
import { browse } from '../support/browser-session.js';
import { FOLLOW_LAUNCH_PAGE_SH } from '../support/launch-page.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const EMBEDDED_NODE = 'v22.23.3'; // scripts/package.mjs NODE_VERSION
const BINARY = path.join(ROOT, 'dist', 'bin', 'vconsole-linux-x64');
const SEA_FUSE_SET = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1';

const seaRequired = process.env.VCONSOLE_SEA === 'required';
const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';
const binaryPresent = existsSync(BINARY);
const skipReason = !onLinuxX64
  ? 'the smoke test runs the linux-x64 executable'
  : 'dist/bin/vconsole-linux-x64 is absent (run `npm run package`, or set VCONSOLE_SEA=required to fail instead)';
if (!binaryPresent && !seaRequired) console.warn(`sea-smoke: skipping the executable tests: ${skipReason}`);

const scratchDirs: string[] = [];
function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-sea-'));
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** An environment in which `node` cannot be found: PATH holds only an empty directory. */
function nodelessEnv(): NodeJS.ProcessEnv {
  return { PATH: scratchDir(), HOME: process.env.HOME, LANG: 'C.UTF-8' };
}

function firstLine(child: ChildProcess, stream: 'stdout' | 'stderr', timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`no line on ${stream} within ${timeoutMs} ms; got ${JSON.stringify(text)}`)),
      timeoutMs,
    );
    child[stream]!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, end));
      }
    });
    child.once('exit', () => reject(new Error(`exited before printing a line on ${stream}`)));
  });
}

/** Waits until `child` has printed `count` lines on stdout and returns them. */
function stdoutLines(child: ChildProcess, count: number, timeoutMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`fewer than ${count} lines on stdout within ${timeoutMs} ms; got ${JSON.stringify(text)}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const lines = text.split('\n');
      if (lines.length > count) {
        clearTimeout(timer);
        resolve(lines.slice(0, count));
      }
    });
    child.once('exit', () => reject(new Error(`exited after printing ${JSON.stringify(text)}`)));
  });
}

/** Reads from a TCP port until `size` bytes arrived. */
async function readGreeting(port: number, size: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  try {
    let received = Buffer.alloc(0);
    for await (const chunk of socket) {
      received = Buffer.concat([received, chunk as Buffer]);
      if (received.length >= size) return received.subarray(0, size).toString('latin1');
    }
    throw new Error(`connection closed after ${received.length} bytes`);
  } finally {
    socket.destroy();
  }
}

describe.skipIf(!onLinuxX64 || (!binaryPresent && !seaRequired))('single executable (linux-x64)', () => {
  it('exists after `npm run package`', () => {
    expect(existsSync(BINARY), skipReason).toBe(true);
  });

  it('prints its version, and with --verbose the embedded Node.js and platform, without a node on PATH', () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);

    const short = spawnSync(copy, ['--version'], { cwd: dir, env: nodelessEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(short.status, short.stderr).toBe(0);
    expect(short.stdout.trim()).toBe(VERSION);

    const verbose = spawnSync(copy, ['version', '--verbose'], { cwd: dir, env: nodelessEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(verbose.status, verbose.stderr).toBe(0);
    expect(verbose.stdout).toContain(VERSION);
    expect(verbose.stdout).toContain(EMBEDDED_NODE);
    expect(verbose.stdout).toContain('linux-x64');
  });

  it('serves a demo console through `proxy` from an empty directory and exits 0 on SIGINT', async () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const child = spawn(copy, ['proxy', 'demo:smoke'], { cwd: dir, env: nodelessEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const listening = JSON.parse(await firstLine(child, 'stdout', 60_000)) as { target: string; port: number };
      expect(listening.target).toBe('demo:smoke');
      expect(await readGreeting(listening.port, 12)).toBe('RFB 003.008\n');

      const exited = once(child, 'exit');
      child.kill('SIGINT');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect({ code, signal, stderr }).toMatchObject({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('makes the TLS certificate of an exposed listener (@peculiar/x509 and its Reflect polyfill made it into the bundle)', async () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    writeFileSync(path.join(dir, 'password'), 'sea-pw-1\n', { mode: 0o600 });
    const env = { ...nodelessEnv(), XDG_CONFIG_HOME: path.join(dir, 'config') };
    const args = ['proxy', 'demo:smoke', '--share', '--listen', '0.0.0.0', '--password-file', path.join(dir, 'password')];
    const child = spawn(copy, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      await firstLine(child, 'stdout', 60_000);
      // stderr is another pipe: its line may arrive a moment after stdout's.
      for (let i = 0; i < 300 && !stderr.includes('Fingerprint='); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const certFile = path.join(dir, 'config', 'vconsole', 'tls', 'listener-cert.pem');
      expect(stderr).toContain(
        `TLS certificate of this listener (made now, give it to viewers as their CA file): ${certFile} sha256 Fingerprint=`,
      );
      expect(readFileSync(certFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serves KubeVirt, OpenStack, tcp and ws targets: the providers made it into the bundle', async () => {
    const kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a' }] });
    const openstack = await startOpenStackFixture();
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const clouds = path.join(dir, 'clouds.yaml');
    writeFileSync(
      clouds,
      `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n` +
        '      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n',
    );
    const { url } = openstack.issueConsoleToken();
    const args = ['proxy', 'vm-a', 'os:web-1', `tcp://127.0.0.1:${openstack.rfb.port}`, url, '--cloud', 'fixture'];
    const env = { ...nodelessEnv(), KUBECONFIG: kubevirt.kubeconfigPath(), OS_CLIENT_CONFIG_FILE: clouds };
    const child = spawn(copy, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const deadline = Date.now() + 60_000;
      while (stdout.split('\n').filter((l) => l.startsWith('{')).length < 4) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no port lines; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const lines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { target: string; port: number });
      expect(lines[0].target).toBe('default/vm-a');
      for (const line of lines) expect(await readGreeting(line.port, 12)).toBe('RFB 003.008\n');
    } finally {
      child.kill('SIGKILL');
      await kubevirt.close();
      await openstack.close();
    }
  });

  it('attaches a piped serial console with `console` (the demo shell)', () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const run = spawnSync(copy, ['console', 'demo:sea'], {
      cwd: dir,
      env: nodelessEnv(),
      input: 'hostname\r',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('hostname\r\nsea\r\n');
  });

  it("reads a demo screen's text with `wait` (OCR: tesseract.js's worker, cores and model are assets) from an empty directory", () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const run = spawnSync(copy, ['wait', 'demo:sea', '--for', 'demo console', '--timeout', '2m'], {
      cwd: dir,
      env: { ...nodelessEnv(), TMPDIR: scratchDir() },
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/demo console\n$/);
    // Nothing written where it ran (the model is not cached in the working directory).
    expect(readdirSync(dir)).toEqual(['vconsole']);
  });

  it('answers viewers --json and list with a clear error when no cluster is configured', () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const env = { ...nodelessEnv(), HOME: dir };
    const viewers = spawnSync(copy, ['viewers', '--json'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(viewers.status, viewers.stderr).toBe(0);
    expect((JSON.parse(viewers.stdout) as { os: string }).os).toBe('linux');
    const list = spawnSync(copy, ['list'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(list.status).toBe(2);
    expect(list.stderr.trim()).toBe(
      'vconsole: no provider is configured here to list (no kubevirt, openstack, pve or libvirt configuration found); pass --provider kubevirt, openstack, pve, libvirt or demo',
    );
    // Asked by name, KubeVirt loads its client (a lazy import inside the executable) to say what is missing.
    const kubevirt = spawnSync(copy, ['list', '--provider', 'kubevirt'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(kubevirt.status).toBe(1);
    expect(kubevirt.stderr.trim()).toBe(
      'vconsole: no Kubernetes configuration found; set KUBECONFIG, pass --kubeconfig FILE, or create ~/.kube/config',
    );
  });

  it('draws the open TUI in a terminal (tmux) and quits on q', async () => {
    const tmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
    expect(tmux.status, 'tmux is needed to give the executable a terminal').toBe(0);
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const socket = path.join(dir, 'tmux.sock');
    const tmuxRun = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    const done = path.join(dir, 'exit-code');
    const command = `env PATH=${dir} CI=true ${copy} open demo:tui --viewer none; echo $? > ${done}`;
    expect(tmuxRun('new-session', '-d', '-x', '160', '-y', '30', command).status).toBe(0);
    try {
      const deadline = Date.now() + 60_000;
      let screen = '';
      while (!/demo:tui\s+demo\s+127\.0\.0\.1:\d+\s+(?:vnc\s+)?listening/.test(screen)) {
        if (Date.now() > deadline) throw new Error(`no TUI row; screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        screen = tmuxRun('capture-pane', '-p').stdout;
      }
      tmuxRun('send-keys', 'q');
      while (!existsSync(done) || readFileSync(done, 'utf8').trim() === '') {
        if (Date.now() > deadline) throw new Error('vconsole did not exit on q');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(readFileSync(done, 'utf8').trim()).toBe('0');
    } finally {
      tmuxRun('kill-server');
    }
  });

  // Needs `open --viewer browser` (src/commands/open/run.ts wiring BrowserViewers).
  it("serves the browser viewer's page for `open --viewer browser` (the pages are inside the executable)", async () => {
    const dir = scratchDir();
    const copy = path.join(dir, 'vconsole');
    copyFileSync(BINARY, copy);
    const recorder = path.join(dir, 'record-url');
    const opened = path.join(dir, 'opened-url');
    writeFileSync(recorder, `#!/bin/sh\n${FOLLOW_LAUNCH_PAGE_SH}\nprintf '%s' "$u" > '${opened}.tmp' && mv '${opened}.tmp' '${opened}'\n`, {
      mode: 0o755,
    });
    // open starts a viewer only where a window can show: a display by name (no X server needed by the recorder).
    const env = { ...nodelessEnv(), DISPLAY: 'vconsole-test-no-x-server:0', PATH: `${dir}:/bin:/usr/bin`, VCONSOLE_BROWSER: recorder };
    const child = spawn(copy, ['open', 'demo:sea-browser', '--viewer', 'browser', '--no-tui'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const deadline = Date.now() + 60_000;
      while (!existsSync(opened)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no browser was asked to open a page; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = readFileSync(opened, 'utf8');
      // The browser's command line carries a one-time address; the page is behind its cookie.
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\/[A-Za-z0-9_-]{22}$/);
      const page = await browse(url);
      expect(page.text).toContain('sea-browser</title>');
      const script = await page.get('vnc.js');
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(100_000);
      expect(stderr).not.toContain(new URL(url).pathname);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.each([['vconsole-linux-arm64'], ['vconsole-win-x64.exe']])('%s was made with the bundle injected', (name) => {
    const file = path.join(ROOT, 'dist', 'bin', name);
    expect(existsSync(file), `${name} is missing from dist/bin`).toBe(true);
    expect(readFileSync(file).includes(SEA_FUSE_SET)).toBe(true);
  });
});

describe('the bundle inside the executable', () => {
  /** Bundles `entry` (default: the CLI) with the module probe and returns the output path. */
  function probeBundle(entry?: string): string {
    const dir = scratchDir();
    const outfile = path.join(dir, 'probe.cjs');
    const args = [path.join(ROOT, 'scripts', 'bundle.mjs'), '--probe', '--outfile', outfile];
    if (entry !== undefined) {
      const entryFile = path.join(dir, 'entry.ts');
      writeFileSync(entryFile, entry);
      args.push('--entry', entryFile);
    }
    const built = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(built.status, built.stderr).toBe(0);
    return outfile;
  }

  function evaluatedPackages(stderr: string): string[] {
    const line = stderr.split('\n').find((l) => l.startsWith('vconsole-bundle-probe: '));
    expect(line, stderr).toBeDefined();
    return JSON.parse(line!.slice('vconsole-bundle-probe: '.length)) as string[];
  }

  it('runs --version and proxy without evaluating Ink, React or the Kubernetes client', async () => {
    const bundle = probeBundle();
    const version = spawnSync(process.execPath, [bundle, '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(version.stdout.trim()).toBe(VERSION);
    expect(evaluatedPackages(version.stderr)).toEqual([]);

    const child = spawn(process.execPath, [bundle, 'proxy', 'demo:lazy'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const listening = JSON.parse(await firstLine(child, 'stdout', 60_000)) as { port: number };
      expect(await readGreeting(listening.port, 12)).toBe('RFB 003.008\n');
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      await exited;
      expect(evaluatedPackages(stderr)).toEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it("serves the browser viewer's page and scripts from inside the bundle, and finds no xdg-open of its own there", async () => {
    const bundle = probeBundle(
      [
        "import { BrowserViewers } from './src/viewers/browser/browser-viewers.ts';",
        'const viewers = new BrowserViewers();',
        "viewers.on('status', (event) => process.stdout.write(JSON.stringify({ status: event }) + '\\n'));",
        "void viewers.launch(1, { host: '127.0.0.1', port: 5999, title: 'vm-sea', consoleType: 'vnc' }).then(() => {",
        "  process.stdout.write(JSON.stringify({ url: viewers.urlOf(1) }) + '\\n');",
        '});',
      ].join('\n'),
    );
    // No PATH: the open package must look for the system's xdg-open (the bundle carries no copy of its own).
    const child = spawn(process.execPath, [bundle], { cwd: scratchDir(), env: { PATH: scratchDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [statusLine, urlLine] = await stdoutLines(child, 2, 60_000);
      const status = JSON.parse(statusLine) as { status: { state: string; message: string } };
      expect(status.status).toMatchObject({
        state: 'failed',
        message: "no browser could be opened (xdg-open not found); open the console page's address by hand",
      });
      const { url } = JSON.parse(urlLine) as { url: string };
      const page = await browse(url);
      expect(page.text).toContain('<title>vm-sea</title>');
      // Generated by the build; cast so that a fresh checkout type-checks before it.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the cast above, which the rule cannot see the point of
      const { PAGE_ASSETS } = (await import('../../src/viewers/browser/page-assets.generated.js' as string)) as {
        PAGE_ASSETS: Record<string, string>;
      };
      expect(await (await page.get('vnc.js')).text()).toBe(PAGE_ASSETS['vnc.js']);
      expect(await (await page.get('vnc.css')).text()).toBe(PAGE_ASSETS['vnc.css']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("encodes Tight's JPEG sub-encoding with jpeg-js in CommonJS (the JPEG encoder made it into the bundle)", () => {
    const bundle = probeBundle(
      [
        "import { tight } from './src/rfb/server/encoders/tight.ts';",
        "import { PixelPacker } from './src/rfb/wire/pixel-values.ts';",
        "import { NATIVE_FORMAT } from './src/rfb/wire/rfb-wire.ts';",
        'const width = 128;',
        'const pixels = Buffer.alloc(width * width * 4);',
        '// A smooth picture of many colours, which deflates poorly: JPEG pays for it.',
        'for (let y = 0; y < width; y++) for (let x = 0; x < width; x++) pixels.set([(x + y + 7) & 0x7f, y * 2, x * 2], (y * width + x) * 4);',
        'const encoder = tight.create({ jpegQuality: 8 });',
        'void encoder.band({ pixels, width, rect: { x: 0, y: 0, w: width, h: width }, packer: new PixelPacker(NATIVE_FORMAT) }).then(({ parts }) => {',
        '  encoder.close();',
        "  process.stdout.write(JSON.stringify({ control: parts[1][0], magic: parts[3].subarray(0, 2).toString('hex') }) + '\\n');",
        '});',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [bundle], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ control: 0x90, magic: 'ffd8' });
  });

  it('draws Ink output in CommonJS (yoga-layout instantiated synchronously)', () => {
    const bundle = probeBundle(
      [
        "import React from 'react';",
        "import { Box, Text, renderToString } from 'ink';",
        "const frame = renderToString(React.createElement(Box, { borderStyle: 'round', width: 16 }, React.createElement(Text, null, 'bundled')));",
        "process.stdout.write(frame + '\\n');",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [bundle], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split('\n')).toEqual(['╭──────────────╮', '│bundled       │', '╰──────────────╯', '']);
    expect(evaluatedPackages(run.stderr)).toEqual(expect.arrayContaining(['ink', 'react']));
  });
});
