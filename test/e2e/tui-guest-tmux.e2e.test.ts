import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CTRL_ALT_DEL_SEEN, GuestSerial, guestImages, startLinuxGuest, type LinuxGuest } from './support/linux-guest.js';
import { pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// The TUI's acting keys on a real screen: `vconsole open` in tmux on the real Linux guest's VGA
// console (QEMU's VNC server, scripts/guest/build.sh). `p` pastes a command that the guest's VGA
// shell runs and `K` sends Ctrl+Alt+Del that reaches its init: both seen on the guest's serial
// line, which only the test reads (vconsole has the screen alone).
const gate = requireTools(['tmux', 'qemu-system-x86_64']);
const images = gate.skip ? undefined : await guestImages();
const missing = images && 'missing' in images ? images.missing : undefined;
if (missing && process.env.VCONSOLE_E2E === 'required') throw new Error(`VCONSOLE_E2E=required but ${missing}`);
const skip = gate.skip ?? missing;

describe.skipIf(skip)(gatedTitle('vconsole open TUI in tmux on a real Linux guest', { skip }), () => {
  const lab = new ProcessLab();
  let guest: LinuxGuest;
  let dir: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    dir = await lab.tempDir('tui-guest');
    if (!images || 'missing' in images) throw new Error('no guest');
    guest = await startLinuxGuest(lab, images, 'tui', dir);
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  it(
    "tmux: p pastes a command the guest's VGA shell runs, K sends Ctrl+Alt+Del that reaches its init",
    async () => {
      const serial = await GuestSerial.connect(guest.serialPath);
      try {
        const vnc = `unix://${guest.vncPath}`;
        const command = [process.execPath, VCONSOLE_BIN, 'open', vnc, '--viewer', 'none'];
        const term = await startTmux(lab, await lab.tempDir('tui-term'), command, {
          columns: 200,
          rows: 40,
          cwd: REPO_ROOT,
          env: vconsoleEnv({ XDG_STATE_HOME: await lab.tempDir('tui-state') }),
        });
        terminal = term;
        await term.awaitScreen('the listening row', (s) => /tui\.vnc\.sock\s.*127\.0\.0\.1:\d+/.test(s));

        // p, the terminal's paste (bracketed), Enter: typed on the VGA console; its line end is Return.
        const pasted = serial.mark();
        await term.sendKeys(['p']);
        await term.awaitScreen('the paste prompt', (s) => s.includes('paste into '));
        await term.paste('echo pasted-$((6*7)) >/dev/ttyS0\n');
        await term.awaitScreen('the pasted text on the prompt', (s) => s.includes('echo pasted-$((6*7)) >/dev/ttyS0⏎'));
        await term.sendKeys(['Enter']);
        await serial.waitFor(/^pasted-42\r?$/m, "the pasted command's output on the serial line", { timeoutMs: 90_000, since: pasted });

        // K, the menu's first key (Ctrl+Alt+Del), Enter: the guest's init says it got it.
        const keyed = serial.mark();
        await term.sendKeys(['K']);
        await term.awaitScreen('the special-key menu', (s) => s.includes('Send which key to ') && s.includes('ctrl-alt-delete'));
        await term.sendKeys(['Enter']);
        await term.awaitScreen('the key sent', (s) => s.includes('sent ctrl-alt-delete'));
        await serial.waitFor(CTRL_ALT_DEL_SEEN, "init's Ctrl+Alt+Del line on the serial line", { timeoutMs: 90_000, since: keyed });

        await term.sendKeys(['q']);
        expect(await pollFor(() => term.exitStatus(), { what: 'vconsole to exit after q', timeoutMs: 30_000 })).toBe('exit 0');
      } finally {
        await serial.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
