// The linux-arm64 executable (`npm run package`) run under qemu-user on an
// x86-64 machine, through the issue's smoke set: --version, viewers, proxy with a real RFB client
// through the port, console piped, screenshot, and ending (SIGINT / stdin closing).
//
// Needs dist/bin/vconsole-linux-arm64 and a way to run it: natively on linux-arm64, otherwise
// `qemu-aarch64-static` (Debian's qemu-user-static) with an aarch64 loader and libraries
// (multiarch libc6:arm64, libstdc++6:arm64, under /lib/ld-linux-aarch64.so.1, or QEMU_LD_PREFIX).
// Skips with the reason when any of that is missing, unless VCONSOLE_SEA_ARM64=required (CI),
// where a missing piece fails.
//
// No binfmt_misc is assumed (containers rarely have it): qemu is called by path with the
// executable as its argument. Under qemu every start is slower (about 0.4 s for --version,
// 2 s for a screenshot, measured on this machine), so the waits are generous.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemoRfbServer } from '../../src/rfb/demo/server.js';
import { startKubevirtFixture } from '../fixtures/kubevirt-api.js';
import { FIXTURE_USER, startOpenStackFixture } from '../fixtures/openstack-api.js';
import { probeRfb } from '../support/rfb-client.js';
import { GiveUp, pollFor } from '../e2e/support/poll.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const EMBEDDED_NODE = 'v22.23.3'; // scripts/package.mjs NODE_VERSION
const BINARY = path.join(ROOT, 'dist', 'bin', 'vconsole-linux-arm64');

const required = process.env.VCONSOLE_SEA_ARM64 === 'required';
const native = process.platform === 'linux' && process.arch === 'arm64';

/** The qemu-user binary on PATH (or VCONSOLE_QEMU_AARCH64), as an absolute path. */
function findQemu(): string | undefined {
  const explicit = process.env.VCONSOLE_QEMU_AARCH64;
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['qemu-aarch64-static', 'qemu-aarch64']) {
      const candidate = path.join(dir, name);
      if (dir && existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}
const qemu = native ? undefined : findQemu();
const ldPrefix = process.env.QEMU_LD_PREFIX ?? '/';
const loaderPresent = native || existsSync(path.join(ldPrefix, 'lib', 'ld-linux-aarch64.so.1'));

const skipReason = !existsSync(BINARY)
  ? 'dist/bin/vconsole-linux-arm64 is absent (run `npm run package`)'
  : !native && process.platform !== 'linux'
    ? 'qemu-user runs the linux-arm64 executable only on Linux'
    : !native && qemu === undefined
      ? 'qemu-aarch64-static is not on PATH (Debian: qemu-user-static)'
      : !loaderPresent
        ? `no aarch64 loader at ${path.join(ldPrefix, 'lib', 'ld-linux-aarch64.so.1')} (dpkg --add-architecture arm64; apt-get install libc6:arm64 libstdc++6:arm64)`
        : undefined;
if (skipReason !== undefined && !required)
  console.warn(`sea-arm64-qemu: skipping: ${skipReason} (VCONSOLE_SEA_ARM64=required fails instead)`);

const scratchDirs: string[] = [];
function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-arm64-'));
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the executable in a fresh directory, and that directory. */
function freshCopy(): { dir: string; copy: string } {
  const dir = scratchDir();
  const copy = path.join(dir, 'vconsole');
  copyFileSync(BINARY, copy);
  return { dir, copy };
}

/** The command line that runs the arm64 executable here: itself natively, else through qemu. */
function command(copy: string, args: string[]): [string, string[]] {
  return qemu === undefined ? [copy, args] : [qemu, [copy, ...args]];
}

/** An environment without `node`: PATH holds only the scratch directory. */
function nodelessEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: dir, HOME: dir, LANG: 'C.UTF-8' };
  if (process.env.QEMU_LD_PREFIX) env.QEMU_LD_PREFIX = process.env.QEMU_LD_PREFIX;
  return env;
}

function run(copy: string, dir: string, args: string[], input?: string) {
  const [file, argv] = command(copy, args);
  return spawnSync(file, argv, { cwd: dir, env: nodelessEnv(dir), encoding: 'utf8', input, timeout: 120_000 });
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no line on stdout within ${timeoutMs} ms; got ${JSON.stringify(text)}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, end));
      }
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
    // How it ended and what it said: a run that fails so on a loaded machine is then told apart.
    child.once('exit', (code, signal) =>
      reject(new Error(`exited (${signal ?? `code ${code}`}) before printing a line; got ${JSON.stringify(text)}; stderr: ${stderr}`)),
    );
  });
}

describe.skipIf(skipReason !== undefined && !required)(`linux-arm64 executable ${native ? '(native)' : 'under qemu-user'}`, () => {
  it('can be run here', () => {
    expect(skipReason).toBeUndefined();
  });

  it('prints its version, and with --verbose the embedded Node.js and linux-arm64, without a node on PATH', () => {
    const { dir, copy } = freshCopy();
    const short = run(copy, dir, ['--version']);
    expect(short.status, short.stderr).toBe(0);
    expect(short.stdout.trim()).toBe(VERSION);

    const verbose = run(copy, dir, ['version', '--verbose']);
    expect(verbose.status, verbose.stderr).toBe(0);
    expect(verbose.stdout).toContain(VERSION);
    expect(verbose.stdout).toContain(EMBEDDED_NODE);
    expect(verbose.stdout).toContain('linux-arm64');
  });

  it('answers `viewers` and `viewers --json` (none found on an empty PATH)', () => {
    const { dir, copy } = freshCopy();
    const json = run(copy, dir, ['viewers', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { os: string; viewers: unknown[]; selected: unknown };
    expect(parsed).toMatchObject({ os: 'linux', viewers: [], selected: null });

    const text = run(copy, dir, ['viewers']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('No VNC viewer found.');
  });

  it('serves demo:vm-a through `proxy` to a real RFB client, and exits 0 on SIGINT', async () => {
    const { dir, copy } = freshCopy();
    const [file, argv] = command(copy, ['proxy', 'demo:vm-a']);
    const child = spawn(file, argv, { cwd: dir, env: nodelessEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const listening = JSON.parse(await firstLine(child, 60_000)) as { target: string; port: number };
      expect(listening.target).toBe('demo:vm-a');
      const result = await probeRfb(net.connect(listening.port, '127.0.0.1'), { timeoutMs: 30_000, readFrame: true });
      expect(result).toMatchObject({ version: '3.8', width: 800, height: 600 });
      expect(result.frame).toHaveLength(800 * 600 * 4);
      // A drawn screen, not one colour: more than one distinct pixel value.
      const pixels = new Set<number>();
      for (let i = 0; i < result.frame!.length && pixels.size < 2; i += 4) pixels.add(result.frame!.readUInt32LE(i) & 0xffffff);
      expect(pixels.size).toBe(2);

      const exited = once(child, 'exit');
      child.kill('SIGINT');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect({ code, signal, stderr }).toMatchObject({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('attaches demo:vm-c#serial piped with `console` and ends when its input closes', () => {
    const { dir, copy } = freshCopy();
    const piped = run(copy, dir, ['console', 'demo:vm-c#serial'], 'hostname\r');
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('hostname\r\nvm-c\r\n');
  });

  it('writes demo:vm-a as a PNG with `screenshot -o FILE`', () => {
    const { dir, copy } = freshCopy();
    const out = path.join(dir, 'vm-a.png');
    const shot = run(copy, dir, ['screenshot', 'demo:vm-a', '-o', out]);
    expect(shot.status, shot.stderr).toBe(0);
    expect(shot.stderr).toContain(`demo:vm-a: wrote ${out}`);
    const png = PNG.sync.read(readFileSync(out));
    expect({ width: png.width, height: png.height }).toEqual({ width: 800, height: 600 });
  });

  it('proxies a tcp:// console (an RFB server on the host) to a real RFB client', async () => {
    const server = await startDemoRfbServer({ name: 'arm64-tcp', host: '127.0.0.1', port: 0 });
    const { dir, copy } = freshCopy();
    const target = `tcp://127.0.0.1:${server.port}`;
    const [file, argv] = command(copy, ['proxy', target]);
    const child = spawn(file, argv, { cwd: dir, env: nodelessEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const listening = JSON.parse(await firstLine(child, 60_000)) as { target: string; port: number };
      const result = await probeRfb(net.connect(listening.port, '127.0.0.1'), { timeoutMs: 30_000, readFrame: true });
      expect(result.name).toBe('arm64-tcp');
      expect(result.frame).toHaveLength(result.width * result.height * 4);
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      expect(((await exited) as [number | null])[0]).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await server.close();
    }
  });

  it.each([
    ['SIGINT', 'Ctrl+C'],
    ['SIGHUP', 'its terminal closed'],
  ] as const)(
    'starts a viewer given by path for `open --no-tui`, and %s (%s) ends the viewer and itself (exit 0)',
    async (signal, _why) => {
      const { dir, copy } = freshCopy();
      // A host (x86-64) shell script: qemu-user runs a host executable the arm64 program spawns as it is.
      const record = path.join(dir, 'viewer.args');
      const viewer = path.join(dir, 'fake-viewer');
      writeFileSync(viewer, `#!/bin/sh\necho "$$ $*" > '${record}.tmp' && mv '${record}.tmp' '${record}'\nexec sleep 600\n`, {
        mode: 0o755,
      });
      const env = { ...nodelessEnv(dir), PATH: `${dir}:/bin:/usr/bin`, DISPLAY: 'vconsole-test-no-x-server:0' };
      const [file, argv] = command(copy, ['open', 'demo:vm-a', '--viewer', viewer, '--no-tui']);
      const child = spawn(file, argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      try {
        const listening = JSON.parse(await firstLine(child, 60_000)) as { port: number };
        await pollFor(
          () => {
            if (child.exitCode !== null) throw new GiveUp(`vconsole exited; stderr: ${stderr}`);
            return existsSync(record) ? true : undefined;
          },
          { what: 'the viewer to start', timeoutMs: 60_000, detail: () => stderr },
        );
        const [pid, address] = readFileSync(record, 'utf8').trim().split(' ');
        expect(address).toBe(`127.0.0.1::${listening.port}`);
        expect(() => process.kill(Number(pid), 0)).not.toThrow();

        const exited = once(child, 'exit');
        child.kill(signal);
        const [code] = (await exited) as [number | null];
        expect({ code, stderr }).toMatchObject({ code: 0 });
        await pollFor(() => (isAlive(Number(pid)) ? undefined : true), { what: 'the viewer to end with vconsole' });
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  );

  it('draws the open TUI in a terminal (tmux) and quits on q', async () => {
    const tmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
    expect(tmux.status, 'tmux is needed to give the executable a terminal').toBe(0);
    const { dir, copy } = freshCopy();
    const socket = path.join(dir, 'tmux.sock');
    const tmuxRun = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    const done = path.join(dir, 'exit-code');
    const [file, argv] = command(copy, ['open', 'demo:tui', '--viewer', 'none']);
    const line = [file, ...argv].map((word) => `'${word}'`).join(' ');
    expect(tmuxRun('new-session', '-d', '-x', '160', '-y', '30', `env PATH=${dir} CI=true ${line}; echo $? > ${done}`).status).toBe(0);
    try {
      const screen = () => tmuxRun('capture-pane', '-p').stdout;
      await pollFor(() => (/demo:tui\s+demo\s+127\.0\.0\.1:\d+\s+(?:vnc\s+)?listening/.test(screen()) ? true : undefined), {
        what: 'the TUI row',
        timeoutMs: 60_000,
        detail: screen,
      });
      tmuxRun('send-keys', 'q');
      await pollFor(() => (existsSync(done) && readFileSync(done, 'utf8').trim() !== '' ? true : undefined), {
        what: 'vconsole to exit on q',
        timeoutMs: 60_000,
      });
      expect(readFileSync(done, 'utf8').trim()).toBe('0');
    } finally {
      tmuxRun('kill-server');
    }
  });

  it('serves KubeVirt, OpenStack and ws targets from the host fixtures, and `list` says when no cluster is configured', async () => {
    const kubevirt = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a' }] });
    const openstack = await startOpenStackFixture();
    const { dir, copy } = freshCopy();
    const nothing = run(copy, dir, ['list']);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toContain('vconsole: no provider is configured here to list');
    const noCluster = run(copy, dir, ['list', '--provider', 'kubevirt']);
    expect(noCluster.status).toBe(1);
    expect(noCluster.stderr).toContain('vconsole: no Kubernetes configuration found');
    const clouds = path.join(dir, 'clouds.yaml');
    writeFileSync(
      clouds,
      `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n` +
        '      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n',
    );
    const { url } = openstack.issueConsoleToken();
    const [file, argv] = command(copy, ['proxy', 'vm-a', 'os:web-1', url, '--cloud', 'fixture']);
    const env = { ...nodelessEnv(dir), KUBECONFIG: kubevirt.kubeconfigPath(), OS_CLIENT_CONFIG_FILE: clouds };
    const child = spawn(file, argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      await pollFor(
        () => {
          if (child.exitCode !== null) throw new GiveUp(`vconsole exited; stderr: ${stderr}`);
          return stdout.split('\n').filter((l) => l.startsWith('{')).length >= 3 ? true : undefined;
        },
        { what: 'three port lines', timeoutMs: 90_000, detail: () => stderr },
      );
      const lines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { target: string; port: number });
      expect(lines[0].target).toBe('default/vm-a');
      for (const line of lines) {
        const result = await probeRfb(net.connect(line.port, '127.0.0.1'), { timeoutMs: 30_000 });
        expect(result.version).toBe('3.8');
      }
    } finally {
      child.kill('SIGKILL');
      await kubevirt.close();
      await openstack.close();
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
