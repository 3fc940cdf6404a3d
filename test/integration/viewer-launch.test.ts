import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selectViewer } from '../../src/viewers/choose.js';
import { buildViewerCommand } from '../../src/viewers/command.js';
import { detectViewers } from '../../src/viewers/detect.js';
import { systemViewerEnvironment } from '../../src/viewers/system-environment.js';
import { describeViewerExit, launchViewer, type ViewerProcess } from '../../src/viewers/viewer-process.js';
import { REPO_ROOT, runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import {
  installStubbornViewer,
  isRunning,
  killLeftovers,
  processesWithMarker,
  startedPids,
  uniqueMarker,
} from '../fixtures/viewer-processes.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fake-viewer.mjs', import.meta.url));

interface LogEntry {
  name: string;
  flavor: string;
  argv: string[];
  pid: number;
  event: 'connected' | 'error' | 'sigterm-ignored';
  host?: string;
  port?: number;
  title?: string;
  rfb?: string;
}

/** A temp dir holding only `node` and fake viewers, used as the whole PATH. */
let binDir: string;
let logFile: string;
const running = new Set<ViewerProcess>();

beforeAll(() => {
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-viewers-'));
  const script = path.join(binDir, 'fake-viewer.mjs');
  fs.copyFileSync(FIXTURE, script);
  fs.chmodSync(script, 0o755);
  for (const name of ['vncviewer', 'remote-viewer', 'xtightvncviewer', 'open', 'my-viewer'])
    fs.symlinkSync(script, path.join(binDir, name));
  fs.symlinkSync(process.execPath, path.join(binDir, 'node'));
});

afterEach(async () => {
  await Promise.all([...running].map((viewer) => viewer.stop(200)));
  running.clear();
  if (logFile) fs.rmSync(logFile, { force: true });
});

afterAll(() => fs.rmSync(binDir, { recursive: true, force: true }));

function environment(extra: Record<string, string> = {}) {
  logFile = path.join(binDir, `log-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  return { PATH: binDir, HOME: binDir, FAKE_VIEWER_LOG: logFile, ...extra };
}

function logEntries(): LogEntry[] {
  if (!fs.existsSync(logFile)) return [];
  return fs
    .readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

async function connectedEntry(): Promise<LogEntry> {
  await waitFor(() => logEntries().some((e) => e.event === 'connected'), 'the fake viewer to reach the server');
  return logEntries().find((e) => e.event === 'connected')!;
}

/** A VNC server stand-in: greets every client with the RFB 3.8 version string. */
async function startRfbGreeter(host = '127.0.0.1') {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write('RFB 003.008\n');
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

function launch(command: ReturnType<typeof buildViewerCommand>, env: Record<string, string>, graceMs?: number, earlyExitMs?: number) {
  const viewer = launchViewer(command, { env, graceMs, earlyExitMs });
  running.add(viewer);
  return viewer;
}

const ipv6Available = await new Promise<boolean>((resolve) => {
  const probe = net.createServer().once('error', () => resolve(false));
  probe.listen(0, '::1', () => probe.close(() => resolve(true)));
});

describe('launching detected viewers against a real port', () => {
  it('detection reads the fake viewers the way it reads the real ones', async () => {
    const found = await detectViewers(systemViewerEnvironment({ env: environment(), platform: 'linux' }));
    expect(found.map((v) => [v.id, v.path, v.version])).toEqual([
      ['remote-viewer', path.join(binDir, 'remote-viewer'), '11.0'],
      ['tigervnc', path.join(binDir, 'vncviewer'), '1.12.0'],
      ['tightvnc', path.join(binDir, 'xtightvncviewer'), '1.3.10'],
    ]);
  });

  const kinds: { request: string; flavor: Record<string, string>; expectArgs: (port: number) => string[] }[] = [
    { request: 'tigervnc', flavor: {}, expectArgs: (port: number) => [`127.0.0.1::${port}`] },
    { request: 'remote-viewer', flavor: {}, expectArgs: (port: number) => ['--title', 'ns/vm-a', `vnc://127.0.0.1:${port}`] },
    {
      request: 'realvnc',
      flavor: { FAKE_VIEWER_FLAVOR: 'realvnc' },
      expectArgs: (port: number) => [`127.0.0.1:${port}`, '-WarnUnencrypted=0'],
    },
    { request: 'tightvnc', flavor: {}, expectArgs: (port: number) => [`127.0.0.1::${port}`] },
  ];
  for (const kind of kinds) {
    it(`${kind.request}: the address form it is given reaches the server`, async () => {
      const server = await startRfbGreeter();
      try {
        const env = environment(kind.flavor);
        const { choice } = await selectViewer({ viewer: kind.request }, systemViewerEnvironment({ env, platform: 'linux' }));
        if (choice.kind !== 'viewer') throw new Error(`no viewer chosen: ${choice.kind}`);
        expect(choice.viewer.id).toBe(kind.request);
        const viewer = launch(buildViewerCommand(choice.viewer, { host: '127.0.0.1', port: server.port, title: 'ns/vm-a' }), env);
        const entry = await connectedEntry();
        expect(entry).toMatchObject({ port: server.port, rfb: 'RFB 003.008\n', argv: kind.expectArgs(server.port) });
        expect(viewer.running).toBe(true);
        const exit = await viewer.stop();
        expect(exit).toMatchObject({ outcome: 'stopped', signal: 'SIGTERM' });
      } finally {
        server.close();
      }
    });
  }

  it.skipIf(!ipv6Available)('an IPv6 listen address is bracketed correctly for TigerVNC and remote-viewer', async () => {
    const server = await startRfbGreeter('::1');
    try {
      for (const name of ['vncviewer', 'remote-viewer'] as const) {
        const env = environment();
        const id = name === 'vncviewer' ? 'tigervnc' : 'remote-viewer';
        const command = buildViewerCommand({ id, name, path: path.join(binDir, name) }, { host: '::1', port: server.port });
        const viewer = launch(command, env);
        expect(await connectedEntry()).toMatchObject({ host: '::1', port: server.port, rfb: 'RFB 003.008\n' });
        await viewer.stop();
      }
    } finally {
      server.close();
    }
  });

  it('a custom executable path gets host::port', async () => {
    const server = await startRfbGreeter();
    try {
      const env = environment();
      const { choice } = await selectViewer(
        { viewer: path.join(binDir, 'my-viewer') },
        systemViewerEnvironment({ env, platform: 'linux' }),
      );
      if (choice.kind !== 'viewer') throw new Error('no viewer chosen');
      expect(choice.viewer.id).toBe('custom');
      launch(buildViewerCommand(choice.viewer, { host: '127.0.0.1', port: server.port }), env);
      expect(await connectedEntry()).toMatchObject({ name: 'my-viewer', port: server.port, rfb: 'RFB 003.008\n' });
    } finally {
      server.close();
    }
  });

  it('an `open`-style launcher that exits 0 after handing the address on counts as detached, not closed', async () => {
    const server = await startRfbGreeter();
    try {
      const env = environment();
      const command = buildViewerCommand(
        { id: 'screen-sharing', name: 'Screen Sharing', path: path.join(binDir, 'open') },
        { host: '127.0.0.1', port: server.port },
      );
      const exit = await launch(command, env).exited;
      expect(exit).toMatchObject({ outcome: 'detached', code: 0 });
      expect(logEntries()).toContainEqual(expect.objectContaining({ event: 'connected', port: server.port }));
    } finally {
      server.close();
    }
  });
});

describe('vconsole viewers --viewer-arg', () => {
  it('names the viewer that would get the argument when --viewer does not', async () => {
    const result = await runVconsole(['viewers', '--viewer-arg', '-FullScreen'], environment());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `--viewer-arg -FullScreen goes to remote-viewer (virt-viewer) (${path.join(binDir, 'remote-viewer')}), the first viewer found here`,
    );
  });
});

describe('viewer supervision', () => {
  it('reports a viewer that exits at once as failed, with its stderr', async () => {
    const env = environment({ FAKE_VIEWER_EXIT_CODE: '1' });
    // "At once" is 3 s of wall clock by default, which starting Node takes on a loaded machine:
    // the test allows a minute (src/viewers/viewer-process.test.ts tests the window itself).
    const exit = await launch({ command: path.join(binDir, 'vncviewer'), args: ['127.0.0.1::1'] }, env, undefined, 60_000).exited;
    expect(exit).toMatchObject({ outcome: 'failed', code: 1, signal: null });
    expect(exit.stderrTail).toContain('unable to connect to socket: Connection refused');
    expect(describeViewerExit(exit, 'TigerVNC')).toBe(
      'TigerVNC exited at once with code 1: fake-viewer: unable to connect to socket: Connection refused (111)',
    );
  });

  it('reports a viewer that rejects its arguments as failed, with its output', async () => {
    const exit = await launch({ command: path.join(binDir, 'vncviewer'), args: ['-title', 'VM', '127.0.0.1::1'] }, environment()).exited;
    expect(exit.outcome).toBe('failed');
    expect(exit.stderrTail).toContain('Unrecognized option: -title');
  });

  it('reports a viewer that cannot be started', async () => {
    const missing = await launch({ command: path.join(binDir, 'no-such-viewer'), args: [] }, environment()).exited;
    expect(missing).toMatchObject({ outcome: 'failed', spawnError: 'ENOENT' });
    expect(describeViewerExit(missing, 'TigerVNC')).toBe('TigerVNC could not be started: not found');
    const notExecutable = path.join(binDir, 'plain-file');
    fs.writeFileSync(notExecutable, 'not a program');
    const denied = await launch({ command: notExecutable, args: [] }, environment()).exited;
    expect(denied).toMatchObject({ outcome: 'failed', spawnError: 'EACCES' });
  });

  it('stop() kills a viewer that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const server = await startRfbGreeter();
    try {
      const env = environment({ FAKE_VIEWER_IGNORE_SIGTERM: '1' });
      const viewer = launch({ command: path.join(binDir, 'vncviewer'), args: [`127.0.0.1::${server.port}`] }, env, 300);
      await connectedEntry();
      const exit = await viewer.stop();
      expect(exit).toMatchObject({ outcome: 'stopped', signal: 'SIGKILL' });
      expect(logEntries().some((e) => e.event === 'sigterm-ignored')).toBe(true);
      expect(viewer.running).toBe(false);
    } finally {
      server.close();
    }
  });

  it('emits exit once with the outcome when the viewer goes on its own', async () => {
    const server = await startRfbGreeter();
    try {
      const viewer = launch({ command: path.join(binDir, 'vncviewer'), args: [`127.0.0.1::${server.port}`] }, environment());
      const entry = await connectedEntry();
      const exits: unknown[] = [];
      viewer.on('exit', (exit) => exits.push(exit));
      process.kill(entry.pid, 'SIGTERM');
      const exit = await viewer.exited;
      expect(exit.signal).toBe('SIGTERM');
      expect(exits).toEqual([exit]);
    } finally {
      server.close();
    }
  });
});

describe('vconsole open leaves no viewer process behind', () => {
  const stubborn = installStubbornViewer();
  const markers: string[] = [];
  const started: RunningVconsole[] = [];
  afterAll(() => stubborn.remove());
  afterEach(() => {
    for (const child of started.splice(0)) child.kill();
    for (const marker of markers.splice(0)) killLeftovers(marker);
  });

  /** `vconsole open demo:vm-a --no-tui` with a viewer that ignores SIGTERM and starts a child that does too. */
  async function openWithStubbornViewer() {
    const marker = uniqueMarker();
    markers.push(marker);
    const log = stubborn.newLog();
    const child = startVconsole(['open', 'demo:vm-a', '--no-tui', '--viewer', stubborn.path, '--viewer-arg', marker], {
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      STUBBORN_VIEWER_LOG: log,
    });
    started.push(child);
    await waitFor(() => startedPids(stubborn.entries(log)).length === 2, 'the viewer and its child to start');
    const pids = startedPids(stubborn.entries(log));
    expect(pids.every(isRunning)).toBe(true);
    return { child, log, pids, marker };
  }

  it('Ctrl+C: the viewer and the child it started are gone when vconsole exits 0', async () => {
    const { child, pids, marker } = await openWithStubbornViewer();
    child.process.kill('SIGINT');
    expect((await child.exit()).code).toBe(0);
    await waitFor(() => !pids.some(isRunning), 'the viewer and its child to be gone');
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('a program that supervises viewers and dies of an uncaught error takes the viewer trees along', async () => {
    const marker = uniqueMarker();
    markers.push(marker);
    const log = stubborn.newLog();
    const viewerProcessModule = pathToFileURL(path.join(REPO_ROOT, 'dist', 'src', 'viewers', 'viewer-process.js')).href;
    const script = [
      `import { launchViewer } from ${JSON.stringify(viewerProcessModule)};`,
      `launchViewer({ command: ${JSON.stringify(stubborn.path)}, args: [${JSON.stringify(marker)}] });`,
      "process.stdin.once('data', () => { throw new Error('crash'); });",
    ].join('\n');
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, STUBBORN_VIEWER_LOG: log },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    await waitFor(() => startedPids(stubborn.entries(log)).length === 2, 'the viewer and its child to start');
    const pids = startedPids(stubborn.entries(log));
    host.stdin.write('crash\n');
    const [code] = (await once(host, 'exit')) as [number | null];
    expect(code).toBe(1);
    await waitFor(() => !pids.some(isRunning), 'the viewer and its child to be gone');
  });

  it('a second Ctrl+C during shutdown exits 130 at once and still takes the viewer and its child along', async () => {
    const { child, log, pids, marker } = await openWithStubbornViewer();
    child.process.kill('SIGINT');
    // The second one lands while the viewer sits out its SIGTERM grace.
    await waitFor(
      () => stubborn.entries(log).some((e) => e.role === 'viewer' && e.event === 'sigterm-ignored'),
      'the first Ctrl+C to reach the viewer',
    );
    child.process.kill('SIGINT');
    expect((await child.exit()).code).toBe(130);
    await waitFor(() => !pids.some(isRunning), 'the viewer and its child to be gone');
    expect(processesWithMarker(marker)).toEqual([]);
  });
});
