import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessLab, runProgram } from './support/processes.js';
import { startQemuSerialVm, type QemuSerialVm } from './support/qemu.js';
import { BOOT_MENU, ESC, askForBootMenu, serveSerialOverTcp } from './support/serial.js';
import { startTmux, unwrapped, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';
import { startWebsockify } from './support/websockify.js';

// `vconsole console` against a real serial line: QEMU's SeaBIOS waits for ESC on it and answers
// with its boot menu, so one exchange proves input and output end to end, for every way
// vconsole reaches a serial console.
const gate = requireTools(['qemu-system-x86_64', 'socat', 'websockify', 'tmux', 'ss']);

describe.skipIf(gate.skip)(gatedTitle('vconsole console on a QEMU serial line', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let vmCount = 0;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    dir = await lab.tempDir('serial');
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  /** A fresh VM per test: SeaBIOS offers its menu once. */
  const freshVm = (): Promise<QemuSerialVm> => startQemuSerialVm(lab, `serial-${++vmCount}`, dir);

  /** `vconsole console` on a fresh VM in tmux, with `stty -a` saved before it starts and after it ends. */
  async function consoleInTmux(): Promise<{ term: TmuxTerminal; sttyBefore: string; sttyAfter: string }> {
    const vm = await freshVm();
    const sttyBefore = join(dir, `stty-before-${vmCount}`);
    const sttyAfter = join(dir, `stty-after-${vmCount}`);
    const script = `stty -a > ${sttyBefore}; "$0" "$1" console "$2"; status=$?; stty -a > ${sttyAfter}; exit $status`;
    terminal = await startTmux(
      lab,
      await lab.tempDir('serial-tmux'),
      ['sh', '-c', script, process.execPath, VCONSOLE_BIN, `unix://${vm.serialPath}`],
      {
        columns: 100,
        rows: 30,
        env: vconsoleEnv(),
        cwd: REPO_ROOT,
      },
    );
    return { term: terminal, sttyBefore, sttyAfter };
  }

  it(
    'piped through unix://: ESC in, the boot menu out, exit 0 once stdin ends',
    async () => {
      const vm = await freshVm();
      const run = await askForBootMenu(lab, [`unix://${vm.serialPath}`]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(BOOT_MENU);
      expect(run.stderr).toBe('');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'piped through tcp://, with --log keeping what the VM printed (created 0600)',
    async () => {
      const vm = await freshVm();
      const bridge = await serveSerialOverTcp(lab, vm.serialPath);
      const log = join(dir, `tcp-${vmCount}.log`);
      const run = await askForBootMenu(lab, [`tcp://127.0.0.1:${bridge.port}`, '--log', log]);
      expect(run.code, run.stderr).toBe(0);
      expect(await readFile(log, 'utf8')).toMatch(BOOT_MENU);
      const { stdout: mode } = await runProgram('stat', ['-c', '%a', log]);
      expect(mode.trim()).toBe('600');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'piped through websockify (ws://, the core of nova-serialproxy): a serial line needs no first byte from the server',
    async () => {
      const vm = await freshVm();
      const bridge = await serveSerialOverTcp(lab, vm.serialPath);
      const websockify = await startWebsockify(lab, dir, { 'serial-token': `127.0.0.1:${bridge.port}` });
      const run = await askForBootMenu(lab, [websockify.url('serial-token')]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(BOOT_MENU);
      expect(run.stderr).not.toContain('serial-token');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "openstack: a serial console from Nova through real websockify (nova-serialproxy's core)",
    async () => {
      const vm = await freshVm();
      const bridge = await serveSerialOverTcp(lab, vm.serialPath);
      const websockify = await startWebsockify(lab, dir, {});
      const { startOpenstackWithWebsockify } = await import('./support/openstack.js');
      const cloud = await startOpenstackWithWebsockify(dir, websockify, 1, 'vnc_lite', bridge.port);
      try {
        const run = await askForBootMenu(lab, ['os:web-1', ...cloud.args], cloud.env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(BOOT_MENU);
        const asked = cloud.fixture.requests.filter((r) => r.path.endsWith('/remote-consoles'));
        expect(asked.length).toBeGreaterThan(0);
        for (const secret of cloud.secrets()) expect(run.stdout + run.stderr).not.toContain(secret);
      } finally {
        await cloud.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "through the KubeVirt console subresource (virt-handler dials QEMU's serial socket)",
    async () => {
      const vm = await freshVm();
      const { startKubevirtFixture } = await import('../fixtures/kubevirt-api.js');
      const fixture = await startKubevirtFixture({
        vmis: [{ namespace: 'default', name: 'vm-serial', phase: 'Running', serialSocketPath: vm.serialPath }],
      });
      try {
        const run = await askForBootMenu(lab, ['vm-serial', '--kubeconfig', fixture.kubeconfigPath({ namespace: 'default' })]);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(BOOT_MENU);
        const dials = fixture.requests.filter((r) => r.upgrade);
        expect(dials.map((r) => r.path)).toEqual([
          '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm-serial/console',
        ]);
        expect(run.stdout + run.stderr).not.toContain(fixture.token);
      } finally {
        await fixture.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'on a terminal: raw mode, the escape key leaves, and the terminal is exactly as before',
    async () => {
      const { term, sttyBefore, sttyAfter } = await consoleInTmux();
      await term.awaitScreen('the banner saying how to leave', (s) => /press ?\^\] ?to ?leave/.test(unwrapped(s)));
      await term.awaitScreen('the boot menu after ESC', (s) => {
        if (BOOT_MENU.test(s)) return true;
        void term.sendKeys([ESC], true);
        return false;
      });
      await term.sendKeys(['C-]']);
      await term.awaitScreen('vconsole to leave', (s) => /left .* serial ?console/.test(unwrapped(s)));
      expect(await term.awaitExit()).toBe('exit 0');
      expect(await readFile(sttyAfter, 'utf8')).toBe(await readFile(sttyBefore, 'utf8'));
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'on a terminal, SIGTERM restores the terminal too',
    async () => {
      const { term, sttyBefore, sttyAfter } = await consoleInTmux();
      await term.awaitScreen('the banner', (s) => /press ?\^\] ?to ?leave/.test(unwrapped(s)));
      const consolePid = await vconsolePid(term.pid);
      process.kill(consolePid, 'SIGTERM');
      await term.awaitExit();
      expect(await readFile(sttyAfter, 'utf8')).toBe(await readFile(sttyBefore, 'utf8'));
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

/** The node process running vconsole under the pane's `sh -c`. */
async function vconsolePid(shellPid: number): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const { stdout } = await runProgram('pgrep', ['-P', String(shellPid), '-f', 'vconsole.js']);
    const pid = Number(stdout.trim().split('\n')[0]);
    if (pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('vconsole did not start in the terminal');
}
