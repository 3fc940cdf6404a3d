import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort, listeningPortsOf } from './support/net.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, type RunningProcess } from './support/processes.js';
import { BOOT_MENU, ESC } from './support/serial.js';
import { startTmux, unwrapped, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';
import { startWebsockify, type Websockify } from './support/websockify.js';

// A VM that stops while `vconsole console` is attached, the real way: QEMU's serial port as a
// tcp server chardev (how nova-compute's libvirt sets it up), real websockify in front of it
// (nova-serialproxy's core), QEMU killed mid-session. websockify then sends close 1000 "Target
// closed"; vconsole must say so at once and exit 1, piped or on a terminal.
const gate = requireTools(['qemu-system-x86_64', 'websockify', 'tmux', 'ss']);

/** A serial-only VM whose line is `-serial tcp:127.0.0.1:PORT,server=on,wait=off`. */
async function startTcpSerialVm(lab: ProcessLab, name: string): Promise<{ port: number; process: RunningProcess }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freeLoopbackPort();
    const qemu = lab.start(
      `qemu ${name} (tcp serial)`,
      'qemu-system-x86_64',
      [
        '-name',
        name,
        '-machine',
        'accel=tcg',
        '-m',
        '64',
        '-nographic',
        '-nodefaults',
        '-serial',
        `tcp:127.0.0.1:${port},server=on,wait=off`,
        '-boot',
        'menu=on,splash-time=30000',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const listening = await pollFor(
      async () => {
        if (qemu.hasExited()) throw new GiveUp('exited');
        return (await listeningPortsOf(qemu.pid)).includes(port) ? true : undefined;
      },
      { what: `QEMU ${name} listening on ${port}`, timeoutMs: 60_000 },
    ).catch(() => false);
    if (listening) return { port, process: qemu };
    await qemu.stop();
  }
  throw new Error('QEMU could not listen on a free port');
}

describe.skipIf(gate.skip)(gatedTitle('a serial console that ends under vconsole console (QEMU behind websockify)', gate), () => {
  const lab = new ProcessLab();
  let count = 0;
  let terminal: TmuxTerminal | undefined;

  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  async function vmBehindWebsockify(): Promise<{ vm: RunningProcess; websockify: Websockify; url: string }> {
    const name = `ending-${++count}`;
    const vm = await startTcpSerialVm(lab, name);
    const websockify = await startWebsockify(lab, await lab.tempDir(`websockify-${count}`), { [name]: `127.0.0.1:${vm.port}` });
    return { vm: vm.process, websockify, url: websockify.url(name) };
  }

  it(
    'piped: the VM killed mid-session ends vconsole at once with one line and exit 1, stdin still open',
    async () => {
      const { vm, url } = await vmBehindWebsockify();
      const run = lab.start('vconsole console', process.execPath, [VCONSOLE_BIN, 'console', url], {
        cwd: REPO_ROOT,
        env: vconsoleEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      await pollFor(
        () => {
          if (run.hasExited()) throw new GiveUp(`vconsole console exited early:\n${run.describe()}`);
          if (BOOT_MENU.test(run.stdout())) return true;
          run.child.stdin?.write(ESC);
          return undefined;
        },
        { what: 'the boot menu through websockify', timeoutMs: 60_000, intervalMs: 300, detail: () => run.describe() },
      );
      await vm.signalAndWait('SIGKILL', 10_000);
      // stdin stays open: vconsole must not wait for it.
      const status = await run.exited;
      expect(status.code, run.describe()).toBe(1);
      const lines = run.stderr().trim().split('\n');
      expect(lines).toEqual([expect.stringMatching(/the console closed: Target closed \(the VM stopped\?\)/)]);
      expect(run.stderr()).not.toMatch(/readyState|token=/);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'on a terminal: the VM killed mid-session is said at once, without a key press, and vconsole exits 1',
    async () => {
      const { vm, url } = await vmBehindWebsockify();
      terminal = await startTmux(lab, await lab.tempDir('endings-tmux'), [process.execPath, VCONSOLE_BIN, 'console', url], {
        columns: 120,
        rows: 30,
        env: vconsoleEnv(),
        cwd: REPO_ROOT,
      });
      const term = terminal;
      await term.awaitScreen('the banner saying how to leave', (s) => /press ?\^\] ?to ?leave/.test(unwrapped(s)));
      await term.awaitScreen('the boot menu after ESC', (s) => {
        if (BOOT_MENU.test(s)) return true;
        void term.sendKeys([ESC], true);
        return false;
      });
      await vm.signalAndWait('SIGKILL', 10_000);
      const screen = await term.awaitScreen('the line saying the console closed', (s) =>
        /the console closed: Target closed \(the VM stopped\?\)/.test(unwrapped(s)),
      );
      expect(unwrapped(screen)).not.toMatch(/readyState/);
      expect(await term.awaitExit()).toBe('exit 1');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a token websockify does not know: one line saying the token was rejected, exit 1, no "connected"',
    async () => {
      const { websockify } = await vmBehindWebsockify();
      const run = lab.start('vconsole console', process.execPath, [VCONSOLE_BIN, 'console', websockify.url('no-such-token')], {
        cwd: REPO_ROOT,
        env: vconsoleEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const status = await run.exited;
      expect(status.code, run.describe()).toBe(1);
      expect(run.stderr().trim().split('\n')).toEqual([expect.stringMatching(/console token rejected/)]);
      expect(run.stderr()).not.toMatch(/connected|no-such-token/);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
