import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// The TUI of `open` on a jump host reached by ssh without X forwarding, with TigerVNC installed
// there: the row says `no display`, never TigerVNC's "cannot open display", `r` retries
// nothing, and the event log holds the ssh -L line for the console's port.
const gate = requireTools(['tmux', 'vncviewer']);

describe.skipIf(gate.skip)(gatedTitle('vconsole open without a display (tmux)', gate), () => {
  const lab = new ProcessLab();
  let terminal: TmuxTerminal | undefined;
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(() => lab.cleanup(), 60_000);

  it(
    'the row says no display, r has nothing to retry, the ssh -L line names the port',
    async () => {
      const command = [
        process.execPath,
        VCONSOLE_BIN,
        'open',
        'demo:vm-a',
        'demo:windows-server-2022-prod',
        '--viewer',
        'tigervnc',
        '--port',
        '5977',
      ];
      const env = vconsoleEnv({
        DISPLAY: undefined,
        WAYLAND_DISPLAY: undefined,
        SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 22',
        USER: 'administrator',
      });
      // 80x24, a laptop's: the log cuts a line's end, so each ssh -L line must come whole first.
      terminal = await startTmux(lab, await lab.tempDir('no-display'), command, { columns: 80, rows: 24, cwd: REPO_ROOT, env });
      const term = terminal;
      await term.awaitScreen('the row saying no display', (screen) => /demo:vm-a.*no display/.test(screen));
      await term.awaitScreen('both ssh -L lines whole', (screen) =>
        ['5977', '5978'].every((port) => screen.includes(`ssh -L ${port}:127.0.0.1:${port} administrator@198.51.100.2`)),
      );
      await term.sendKeys(['r']);
      const screen = await term.awaitScreen('the retry answer', (s) => s.includes('nothing to retry'));
      expect(screen).toMatch(/demo:vm-a .*listening +no display /);
      expect(screen).not.toMatch(/cannot open display|viewer failed|TigerVNC failed/i);
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
