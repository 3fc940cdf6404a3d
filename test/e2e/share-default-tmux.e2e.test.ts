import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `open` shares VNC consoles by default: `g` on a plain `vconsole open demo:vm-a` shows the
// console's picture in its tile, no --share needed; `--no-share` turns it off, and the tile
// says what would turn it on again.
const gate = requireTools(['tmux']);

/** The distinct truecolor foreground colours on the screen: a picture has many, text a few. */
function colours(screen: string): Set<string> {
  return new Set(screen.match(/38;2;\d+;\d+;\d+/g) ?? []);
}

describe.skipIf(gate.skip)(gatedTitle('vconsole open shares by default (tmux)', gate), () => {
  const lab = new ProcessLab();
  let terminal: TmuxTerminal | undefined;
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(() => lab.cleanup(), 60_000);

  async function openInTmux(extra: string[]): Promise<TmuxTerminal> {
    const command = [process.execPath, VCONSOLE_BIN, 'open', 'demo:vm-a', '--viewer', 'none', '--thumbnails', 'truecolor', ...extra];
    terminal = await startTmux(lab, await lab.tempDir('share-default'), command, {
      columns: 120,
      rows: 40,
      cwd: REPO_ROOT,
      env: vconsoleEnv({ COLORTERM: 'truecolor', NO_COLOR: undefined }),
    });
    await terminal.awaitScreen('the row listening', (screen) => screen.includes('demo:vm-a') && screen.includes('listening'));
    return terminal;
  }

  it(
    'g shows the demo console in its tile without --share',
    async () => {
      const term = await openInTmux([]);
      await term.sendKeys(['g']);
      let last = 0;
      await pollFor(
        async () => {
          last = colours(await term.captureColours()).size;
          return last > 8 ? true : undefined;
        },
        { what: "the demo console's picture in its tile", timeoutMs: 30_000, intervalMs: 200, detail: () => `${last} colours` },
      );
      expect(await term.capture()).not.toContain('not shared');
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '--no-share: the tile has no picture and says to drop --no-share',
    async () => {
      const term = await openInTmux(['--no-share']);
      await term.sendKeys(['g']);
      const screen = await term.awaitScreen('the reason', (s) => s.includes('not shared') && s.includes('drop --no-share'), 30_000);
      expect(screen).toContain('no picture');
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
