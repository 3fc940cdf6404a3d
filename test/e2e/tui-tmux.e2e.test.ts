import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtQemuCluster, type KubevirtQemuCluster } from './support/kubevirt-qemu.js';
import { canConnect, listeningPortsOf, listeningSockets } from './support/net.js';
import { pollFor } from './support/poll.js';
import { awaitProcessesGone, commandLine, descendantPids, ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, REPO_ROOT, requireTools, VCONSOLE_BIN } from './support/tools.js';
import { awaitVmWindows, type ViewerWindowKind, type VmWindow } from './support/viewer-windows.js';
import { vconsoleEnv } from './support/vconsole.js';
import { awaitWindowsGone, startXvfb, type XServer } from './support/xvfb.js';

// The TUI in a real terminal (tmux), driving real viewer windows on Xvfb, with real QEMU VMs
// behind the KubeVirt fixture: what a user of `vconsole open` on a workstation sees and types.
const gate = requireTools([
  'tmux',
  'qemu-system-x86_64',
  'vncsnapshot',
  'convert',
  'import',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'vncviewer',
  'remote-viewer',
  'ss',
  'pgrep',
]);

const TIGERVNC: ViewerWindowKind = { viewer: 'TigerVNC', className: 'TigerVNC Viewer' };
const REMOTE_VIEWER: ViewerWindowKind = { viewer: 'remote-viewer', className: 'Remote-viewer' };

/** The table row of `target` once its viewer is open: `default/vm-a  kubevirt  127.0.0.1:40123  viewer open ...`. */
function rowWithOpenViewer(screen: string, target: string): RegExpMatchArray | null {
  const row = new RegExp(`${target.replace('/', '\\/')}\\s.*127\\.0\\.0\\.1:(\\d+)\\s+(?:vnc\\s+)?viewer open`);
  return (
    screen
      .split('\n')
      .map((line) => row.exec(line))
      .find((m) => m) ?? null
  );
}

/** What vconsole has running at one moment: its child processes, its listening ports, its viewers' windows. */
interface Running {
  pids: number[];
  ports: number[];
  windowIds: string[];
}

describe.skipIf(gate.skip)(gatedTitle('vconsole open TUI in tmux', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let cluster: KubevirtQemuCluster;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    dir = await lab.tempDir('tui');
    [x, cluster] = await Promise.all([startXvfb(lab), startKubevirtQemuCluster(lab, dir)]);
  }, E2E_SETUP_TIMEOUT_MS);
  // A failed test must not leave its vconsole and viewers around for the next one.
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(async () => {
    await cluster?.close().catch(() => undefined);
    await lab.cleanup();
  }, 60_000);

  async function openInTmux(targets: string[], name: string, viewerArgs: string[] = ['--viewer', 'tigervnc']): Promise<TmuxTerminal> {
    const termDir = await lab.tempDir(name);
    const command = [process.execPath, VCONSOLE_BIN, 'open', ...targets, ...viewerArgs, '--kubeconfig', cluster.kubeconfig];
    terminal = await startTmux(lab, termDir, command, { columns: 160, rows: 40, cwd: REPO_ROOT, env: vconsoleEnv(x.env) });
    return terminal;
  }

  async function whatVconsoleRuns(term: TmuxTerminal, windows: VmWindow[]): Promise<Running> {
    return { pids: await descendantPids(term.pid), ports: await listeningPortsOf(term.pid), windowIds: windows.map((w) => w.window.id) };
  }

  /** After quitting: vconsole exited 0, and nothing it started is left (see expectAllGone). */
  async function expectCleanExit(term: TmuxTerminal, running: Running, how: string): Promise<void> {
    const status = await pollFor(() => term.exitStatus(), {
      what: `vconsole to exit after ${how}`,
      timeoutMs: 15_000,
      detail: () => term.capture(),
    });
    expect(status, await term.capture()).toBe('exit 0');
    await expectAllGone(term, running, how);
  }

  /** No vconsole, no viewer process, no viewer window, and every port it listened on refuses connections. */
  async function expectAllGone(term: TmuxTerminal, running: Running, how: string): Promise<void> {
    await awaitProcessesGone([term.pid], `vconsole to exit after ${how}`);
    await awaitProcessesGone(running.pids, `vconsole's viewers to exit after ${how}`);
    await awaitWindowsGone(x, running.windowIds, `the viewer windows to close after ${how}`);
    for (const port of running.ports) {
      if (!(await canConnect(port))) continue;
      // Say who holds it, so a failure tells a leak from a port some other program took since.
      const holders = (await listeningSockets()).filter((socket) => socket.port === port);
      // A connection with nobody listening is another test's socket on that port, not a leak.
      if (holders.length === 0) continue;
      const who = await Promise.all(holders.map(async (h) => `pid ${h.pid}: ${(await commandLine(h.pid)) ?? '?'}`));
      expect.fail(`port ${port} still open after ${how}; listening: ${who.join('; ')}`);
    }
  }

  it(
    'tmux + tigervnc + qemu: the table shows the VM, `a` adds a second one with its own window, Ctrl+C leaves nothing behind',
    async () => {
      const term = await openInTmux(['default/vm-a'], 'ctrl-c');
      const first = await term.awaitScreen(
        'a row for default/vm-a with its viewer open',
        (s) => rowWithOpenViewer(s, 'default/vm-a') !== null,
      );
      await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmA], () => '');

      await term.sendKeys(['a']);
      await term.awaitScreen('the add picker', (s) => s.includes('Add which consoles? filter:'));
      await term.sendKeys(['default/vm-b'], true);
      // Like a person: look at what was typed, then press Enter.
      await term.awaitScreen('the typed target in the picker', (s) => s.includes('filter: default/vm-b'));
      await term.sendKeys(['Enter']);
      const both = await term.awaitScreen(
        'a row for default/vm-b with its viewer open',
        (s) => rowWithOpenViewer(s, 'default/vm-b') !== null,
      );
      const windows = await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmA, cluster.vmB], () => '');

      const running = await whatVconsoleRuns(term, windows);
      const shownPorts = [rowWithOpenViewer(first, 'default/vm-a')![1], rowWithOpenViewer(both, 'default/vm-b')![1]].map(Number);
      expect(running.ports.sort()).toEqual(shownPorts.sort());
      const viewers = (await Promise.all(running.pids.map(commandLine))).filter((line) => line?.includes('vncviewer'));
      expect(viewers).toHaveLength(2);

      await term.sendKeys(['C-c']);
      await expectCleanExit(term, running, 'Ctrl+C');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'tmux + tigervnc + qemu: q quits, closing the viewer and the port',
    async () => {
      const term = await openInTmux(['default/vm-b'], 'quit');
      await term.awaitScreen('a row for default/vm-b with its viewer open', (s) => rowWithOpenViewer(s, 'default/vm-b') !== null);
      const running = await whatVconsoleRuns(term, await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmB], () => ''));
      expect(running.ports).toHaveLength(1);

      await term.sendKeys(['q']);
      await expectCleanExit(term, running, 'q');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'tmux + remote-viewer + qemu: --no-tui in a terminal prints the ports, and Ctrl+C (SIGINT to the whole foreground group) leaves nothing behind',
    async () => {
      const term = await openInTmux(['default/vm-a', 'default/vm-b'], 'no-tui', ['--viewer', 'remote-viewer', '--no-tui']);
      const screen = await term.awaitScreen(
        'both port lines',
        (s) => s.includes('"target":"default/vm-a"') && s.includes('"target":"default/vm-b"'),
      );
      const running = await whatVconsoleRuns(term, await awaitVmWindows(x, dir, REMOTE_VIEWER, [cluster.vmA, cluster.vmB], () => ''));
      const printed = [...screen.matchAll(/"port":(\d+)/g)].map((m) => Number(m[1]));
      expect(running.ports.sort()).toEqual(printed.sort());

      await term.sendKeys(['C-c']);
      await expectCleanExit(term, running, 'Ctrl+C');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'tmux + tigervnc + qemu: closing the terminal (SIGHUP) leaves no vconsole, viewer or port behind',
    async () => {
      const term = await openInTmux(['default/vm-a'], 'hangup');
      await term.awaitScreen('a row for default/vm-a with its viewer open', (s) => rowWithOpenViewer(s, 'default/vm-a') !== null);
      const running = await whatVconsoleRuns(term, await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmA], () => ''));
      expect(running.ports).toHaveLength(1);

      await term.kill();
      await expectAllGone(term, running, 'the terminal closed');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'tmux + tigervnc + qemu: a viewer the user closes leaves its port listening, and o opens it again',
    async () => {
      const term = await openInTmux(['default/vm-a'], 'reopen');
      const screen = await term.awaitScreen(
        'a row for default/vm-a with its viewer open',
        (s) => rowWithOpenViewer(s, 'default/vm-a') !== null,
      );
      const port = Number(rowWithOpenViewer(screen, 'default/vm-a')![1]);
      await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmA], () => '');
      const viewerPid = async () => {
        for (const pid of await descendantPids(term.pid)) if ((await commandLine(pid))?.includes('vncviewer')) return pid;
        return undefined;
      };
      const first = await pollFor(viewerPid, { what: 'the TigerVNC process', timeoutMs: 15_000 });

      // The user closes the window: TigerVNC exits (SIGTERM is what a window manager's close leads to).
      process.kill(first, 'SIGTERM');
      await term.awaitScreen('the row to say the viewer closed', (s) =>
        new RegExp(`default/vm-a\\s.*127\\.0\\.0\\.1:${port}\\s+vnc\\s+viewer closed`).test(s),
      );
      expect(await canConnect(port)).toBe(true);

      await term.sendKeys(['o']);
      await term.awaitScreen('the viewer open again', (s) => rowWithOpenViewer(s, 'default/vm-a') !== null);
      const second = await pollFor(viewerPid, { what: 'a new TigerVNC process', timeoutMs: 15_000 });
      expect(second).not.toBe(first);
      const windows = await awaitVmWindows(x, dir, TIGERVNC, [cluster.vmA], () => '');

      const running = await whatVconsoleRuns(term, windows);
      await term.sendKeys(['q']);
      await expectCleanExit(term, running, 'q');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

// Keys as a terminal delivers them in bursts: demo targets only, so only tmux is needed.
const keysGate = requireTools(['tmux']);

/** The line of the table the selection marker is on. */
function selectedRow(screen: string): string {
  return screen.split('\n').find((line) => line.startsWith('›')) ?? '';
}

/** The targets of the table's rows, top to bottom (each row starts with the marker or two blanks). */
function tableTargets(screen: string): string[] {
  return screen.split('\n').flatMap((line) => /^[› ] (demo:\S+)\s/.exec(line)?.[1] ?? []);
}

describe.skipIf(keysGate.skip)(gatedTitle('vconsole open TUI in tmux, keys in one write', keysGate), () => {
  const lab = new ProcessLab();
  let terminal: TmuxTerminal | undefined;

  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  async function openDemo(targets: string[], name: string): Promise<TmuxTerminal> {
    const command = [process.execPath, VCONSOLE_BIN, 'open', ...targets, '--viewer', 'none'];
    terminal = await startTmux(lab, await lab.tempDir(name), command, { columns: 160, rows: 40, cwd: REPO_ROOT, env: vconsoleEnv() });
    return terminal;
  }

  it(
    'tmux: `jj` in one write moves two rows, and `kx` closes the row above',
    async () => {
      const term = await openDemo(['demo:vm-a', 'demo:vm-b', 'demo:vm-c'], 'chunk');
      await term.awaitScreen('three listening rows', (s) =>
        ['a', 'b', 'c'].every((vm) => new RegExp(`demo:vm-${vm}\\s.*127\\.0\\.0\\.1:\\d+`).test(s)),
      );
      // One write to the terminal, as fast typing over a laggy ssh link arrives.
      await term.sendKeys(['jj'], true);
      await term.awaitScreen('the selection on demo:vm-c', (s) => selectedRow(s).includes('demo:vm-c'));
      await term.sendKeys(['kx'], true);
      await term.awaitScreen('demo:vm-b closed', (s) => tableTargets(s).join(' ') === 'demo:vm-a demo:vm-c');
      await term.sendKeys(['q']);
      expect(await pollFor(() => term.exitStatus(), { what: 'vconsole to exit after q', timeoutMs: 15_000 })).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'tmux: a target pasted into the add prompt together with its Enter is added',
    async () => {
      const term = await openDemo(['demo:vm-a'], 'paste');
      await term.awaitScreen('a row for demo:vm-a', (s) => /demo:vm-a\s.*127\.0\.0\.1:\d+/.test(s));
      await term.sendKeys(['a']);
      await term.awaitScreen('the add picker', (s) => s.includes('Add which consoles? filter:'));
      // One write to the terminal, as a paste of a copied line (or fast typing over ssh) arrives.
      await term.sendKeys(['demo:vm-b\r'], true);
      await term.awaitScreen('a row for demo:vm-b', (s) => /demo:vm-b\s.*127\.0\.0\.1:\d+/.test(s), 15_000);
      await term.sendKeys(['q']);
      expect(await pollFor(() => term.exitStatus(), { what: 'vconsole to exit after q', timeoutMs: 15_000 })).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  /** The lines a demo serial console printed, from its --log-dir file (`demo:one#serial` -> demo_one_serial.log). */
  function printed(logs: string, name: string): string[] {
    const file = join(logs, `demo_${name}_serial.log`);
    return existsSync(file) ? readFileSync(file, 'utf8').split(/\r?\n/) : [];
  }

  it(
    'tmux: p pastes into a console, b broadcasts to the marked ones, P powers a VM after y',
    async () => {
      const dir = await lab.tempDir('acting');
      const logs = join(dir, 'logs');
      const state = join(dir, 'state');
      const command = [process.execPath, VCONSOLE_BIN, 'open', 'demo:one#serial', 'demo:two#serial', '--viewer', 'none', '--log-dir', logs];
      const term = await startTmux(lab, dir, command, {
        columns: 160,
        rows: 40,
        cwd: REPO_ROOT,
        env: vconsoleEnv({ XDG_STATE_HOME: state }),
      });
      terminal = term;
      await term.awaitScreen('two listening rows', (s) =>
        ['one', 'two'].every((vm) => new RegExp(`demo:${vm}#serial\\s.*127\\.0\\.0\\.1:\\d+`).test(s)),
      );

      // p, then a terminal's paste (bracketed: the TUI asked for it), then Enter sends it; its line end is the shell's Enter.
      await term.sendKeys(['p']);
      await term.awaitScreen('the paste prompt', (s) => s.includes('paste into demo:one#serial:'));
      await term.paste('echo pasted-into-one\n');
      await term.awaitScreen('the pasted text on the prompt', (s) => s.includes('echo pasted-into-one⏎'));
      await term.sendKeys(['Enter']);
      await pollFor(() => printed(logs, 'one').includes('pasted-into-one') || undefined, {
        what: "demo:one's shell to run the pasted echo",
        timeoutMs: 15_000,
      });
      expect(printed(logs, 'two')).not.toContain('pasted-into-one');

      // Space marks both rows, b broadcasts what is typed to both until Esc.
      await term.sendKeys(['Space', 'j', 'Space', 'b']);
      await term.awaitScreen('the broadcast header', (s) => s.includes('BROADCAST to 2 consoles: demo:one#serial, demo:two#serial'));
      await term.sendKeys(['echo to-both'], true);
      await term.sendKeys(['Enter']);
      for (const vm of ['one', 'two'])
        await pollFor(() => printed(logs, vm).includes('to-both') || undefined, {
          what: `demo:${vm}'s shell to run the broadcast echo`,
          timeoutMs: 15_000,
        });
      await term.sendKeys(['Escape']);
      await term.awaitScreen('the broadcast over', (s) => !s.includes('BROADCAST') && s.includes('broadcast to 2 consoles ended'));

      // P on demo:one: stop, n first (nothing done), then y (its power file and its state column say so).
      const powerFile = join(state, 'vconsole', 'demo-power.json');
      await term.sendKeys(['k', 'P']);
      await term.awaitScreen('the power menu', (s) => s.includes('Power demo:one#serial: which action?'));
      await term.sendKeys(['j', 'Enter']);
      await term.awaitScreen('the confirmation', (s) => s.includes('stop VM demo:one#serial? [y/N]'));
      await term.sendKeys(['n']);
      await term.awaitScreen('nothing done', (s) => s.includes('nothing done'));
      expect(existsSync(powerFile)).toBe(false);
      await term.sendKeys(['P', 'j', 'Enter']);
      await term.awaitScreen('the confirmation again', (s) => s.includes('stop VM demo:one#serial? [y/N]'));
      await term.sendKeys(['y']);
      await term.awaitScreen('the stop done', (s) => /demo:one#serial: power stop: stopped \(was running\)/.test(s));
      expect(JSON.parse(readFileSync(powerFile, 'utf8'))).toEqual({ one: 'Stopped' });
      await term.awaitScreen('demo:one stopped in its row', (s) => /demo:one#serial\s.*Stopped/.test(s));
      await term.sendKeys(['q']);
      expect(await pollFor(() => term.exitStatus(), { what: 'vconsole to exit after q', timeoutMs: 15_000 })).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
