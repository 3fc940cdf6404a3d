import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessLab } from './support/processes.js';
import { startQemuSerialVm } from './support/qemu.js';
import { BOOT_MENU, ESC } from './support/serial.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `vconsole open` with serial rows in a real terminal: Enter attaches the terminal to the VM's
// serial line (a QEMU SeaBIOS boot menu, the demo VM's shell), ^] brings the table back as it
// was, and what the VM printed while detached is replayed on the next attach.
const gate = requireTools(['qemu-system-x86_64', 'tmux']);

describe.skipIf(gate.skip)(gatedTitle('vconsole open: serial rows in tmux', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    dir = await lab.tempDir('serial-tui');
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  async function openInTmux(targets: string[]): Promise<TmuxTerminal> {
    const command = [process.execPath, VCONSOLE_BIN, 'open', ...targets, '--viewer', 'none'];
    terminal = await startTmux(lab, await lab.tempDir('tmux'), command, { columns: 140, rows: 40, cwd: REPO_ROOT, env: vconsoleEnv() });
    return terminal;
  }

  /** The table row of `target`, once it listens. */
  const rowOf = (screen: string, target: string) => screen.split('\n').find((line) => line.includes(target) && /listening/.test(line));

  it(
    'Enter attaches a QEMU serial console next to a VNC one, ESC reaches SeaBIOS, ^] brings the table back with the same row selected',
    async () => {
      const vm = await startQemuSerialVm(lab, 'tui-serial', dir);
      const term = await openInTmux(['demo:screen', `unix://${vm.serialPath}#serial`, 'demo:shell2#serial']);
      await term.awaitScreen('both rows listening', (s) => Boolean(rowOf(s, 'demo:screen') && rowOf(s, 'unix://')));
      const table = await term.capture();
      expect(rowOf(table, 'unix://')).toMatch(/serial/);
      expect(rowOf(table, 'demo:screen')).toMatch(/vnc/);
      await term.sendKeys(['Down']);
      await term.awaitScreen('the serial row selected', (s) => (s.split('\n').find((l) => l.startsWith('›')) ?? '').includes('unix://'));
      await term.sendKeys(['Enter']);
      await term.awaitScreen('the attach banner', (s) => /return to the table/.test(s.replace(/\n/g, '')));
      await term.awaitScreen('the boot menu after ESC', (s) => {
        if (BOOT_MENU.test(s)) return true;
        void term.sendKeys([ESC], true);
        return false;
      });
      // The terminal shrinks while the console is attached: the table comes back at the new size.
      await term.resize(90, 30);
      await term.sendKeys(['C-]']);
      const back = await term.awaitScreen('the table again', (s) => Boolean(rowOf(s, 'demo:screen')));
      expect(back.split('\n').find((l) => l.startsWith('›'))).toContain('unix://');
      expect(rowOf(back, 'demo:shell2')).toMatch(/attach ⏎|new/);
      expect(Math.max(...back.split('\n').map((l) => l.trimEnd().length))).toBeLessThanOrEqual(90);
      expect(back).not.toMatch(BOOT_MENU);
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'what the demo VM printed while detached is marked unread and replayed on the next attach',
    async () => {
      const term = await openInTmux(['demo:shell#serial']);
      await term.awaitScreen('the serial row listening', (s) => Boolean(rowOf(s, 'demo:shell')));
      await term.sendKeys(['Enter']);
      await term.awaitScreen('the demo shell prompt', (s) => s.includes('root@shell:~#'));
      await term.sendKeys(['echo before-detach', 'Enter']);
      await term.awaitScreen('the echo', (s) => /^before-detach$/m.test(s));
      await term.sendKeys(['C-]']);
      // The demo VM prints a heartbeat line every 5 s: the row says there is something new.
      await term.awaitScreen('unread output on the row', (s) => /new/.test(rowOf(s, 'demo:shell') ?? ''), 30_000);
      await term.sendKeys(['Enter']);
      const replayed = await term.awaitScreen('the replayed heartbeat', (s) => /heartbeat \d+/.test(s));
      expect(replayed).toMatch(/^before-detach$/m);
      await term.sendKeys(['C-]']);
      await term.awaitScreen('the table again', (s) => Boolean(rowOf(s, 'demo:shell')));
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
