import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `vconsole open` in a real terminal at 80x24, as a laptop's: the names whole, the columns that
// give way (traffic, uptime, provider) dropped, the essential keys in the footer; and the colours tmux holds for every cell:
// none at all under NO_COLOR, and no blue or dark grey otherwise.
const gate = requireTools(['tmux']);

const TARGETS = ['demo:windows-server-2022', 'demo:frontend-7f9c', 'demo:db-primary'];

/** The colour parameters of every SGR sequence tmux reports for the screen (`capture-pane -e`). */
function colourCodes(screen: string): string[] {
  const codes: string[] = [];
  for (const match of screen.matchAll(/\u001B\[([0-9;]*)m/g)) {
    const params = match[1].split(';').map(Number);
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (p === 38 || p === 48) {
        const length = params[i + 1] === 5 ? 2 : 4;
        codes.push(params.slice(i, i + 1 + length).join(';'));
        i += length;
      } else if ((p >= 30 && p <= 37) || (p >= 40 && p <= 47) || (p >= 90 && p <= 97) || (p >= 100 && p <= 107)) codes.push(String(p));
    }
  }
  return codes;
}

describe.skipIf(gate.skip)(gatedTitle('vconsole open at 80x24 in tmux: columns and colour', gate), () => {
  const lab = new ProcessLab();
  let terminal: TmuxTerminal | undefined;
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  }, 60_000);
  afterAll(() => lab.cleanup(), 60_000);

  async function open(
    name: string,
    env: NodeJS.ProcessEnv,
    size = { columns: 80, rows: 24 },
  ): Promise<{ screen: string; coloured: string }> {
    const command = [process.execPath, VCONSOLE_BIN, 'open', ...TARGETS, '--viewer', 'none'];
    const base = vconsoleEnv();
    delete base.NO_COLOR;
    delete base.FORCE_COLOR;
    terminal = await startTmux(lab, await lab.tempDir(name), command, { ...size, cwd: REPO_ROOT, env: { ...base, ...env } });
    const listening = (s: string) =>
      TARGETS.every((t) => s.split('\n').some((line) => line.includes(`${t} `) && / listening +-/.test(line)));
    const screen = await terminal.awaitScreen('every row listening', listening);
    return { screen, coloured: await terminal.captureColours() };
  }

  it(
    'keeps every name whole, drops the columns that give way, and shows the essential keys',
    async () => {
      const { screen } = await open('layout', {});
      for (const target of TARGETS) expect(screen).toContain(`${target} `);
      const title = screen.split('\n').find((line) => line.includes('TARGET')) ?? '';
      for (const dropped of ['PROVIDER', 'UPTIME', ' IN ', ' OUT']) expect(title).not.toContain(dropped);
      const footer = screen.trimEnd().split('\n').at(-1) ?? '';
      for (const key of ['↑↓/jk select', '⏎/o open/attach', 'a add', 'q quit', 'g grid']) expect(footer).toContain(key);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'gives the columns back as the terminal widens: 120x40 shows traffic, 300x50 every column',
    async () => {
      const titleAt = async (columns: number, rows: number) => {
        const { screen } = await open(`layout-${columns}`, {}, { columns, rows });
        await terminal?.destroy();
        terminal = undefined;
        for (const target of TARGETS) expect(screen).toContain(`${target} `);
        return screen.split('\n').find((line) => line.includes('TARGET')) ?? '';
      };
      const medium = await titleAt(120, 40);
      for (const shown of [' IN', ' OUT', 'ADDRESS']) expect(medium).toContain(shown);
      const wide = await titleAt(300, 50);
      for (const shown of ['PROVIDER', 'ADDRESS', 'TYPE', 'CONN', ' IN', ' OUT', 'UPTIME']) expect(wide).toContain(shown);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'draws no colour at all under NO_COLOR, nor under FORCE_COLOR=0',
    async () => {
      for (const env of [{ NO_COLOR: '1' }, { FORCE_COLOR: '0' }]) {
        const { coloured } = await open(Object.keys(env)[0].toLowerCase(), env);
        expect(coloured).toContain('demo:db-primary');
        expect(colourCodes(coloured)).toEqual([]);
        await terminal?.destroy();
        terminal = undefined;
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'colours otherwise, never in blue or dark grey',
    async () => {
      const { coloured } = await open('colour', {});
      const codes = colourCodes(coloured);
      expect(codes).toContain('36');
      expect(codes.filter((c) => ['34', '94', '90', '30', '38;5;4', '38;5;8', '38;5;12'].includes(c))).toEqual([]);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
