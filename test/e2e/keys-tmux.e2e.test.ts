import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `?` (the keys, once the footer is cut), `/` (a filter over the rows) and `>` (the order) as a
// person types them in a real 80x24 terminal, over the demo consoles: two screens and a serial line.
const gate = requireTools(['tmux']);

describe.skipIf(gate.skip)(gatedTitle('vconsole open: ?, / and > in tmux', gate), () => {
  const lab = new ProcessLab();
  let home: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    home = await lab.tempDir('keys-home');
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  const TARGETS = ['demo:vm-a', 'demo:vm-b', 'demo:vm-c#serial'];
  /** The rows of the session table on screen, by their VM's name (a serial row's name goes on with `#serial`). */
  const rowsOn = (screen: string) =>
    ['demo:vm-a', 'demo:vm-b', 'demo:vm-c'].filter((name) =>
      screen.split('\n').some((l) => /^[› ] /.test(l) && (l.includes(`${name} `) || l.includes(`${name}#`))),
    );
  const header = (screen: string) => screen.split('\n')[0];

  async function openThree(): Promise<TmuxTerminal> {
    const dir = await lab.tempDir('tmux');
    const env = vconsoleEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), KUBECONFIG: join(home, 'no-kubeconfig') });
    const command = [process.execPath, VCONSOLE_BIN, 'open', ...TARGETS, '--viewer', 'none'];
    terminal = await startTmux(lab, dir, command, { columns: 80, rows: 24, cwd: REPO_ROOT, env });
    await terminal.awaitScreen(
      'the three rows',
      (s) => rowsOn(s).length === 3 && s.split('\n').filter((l) => /listening/.test(l)).length >= 3,
    );
    return terminal;
  }

  it(
    '? shows every key, scrolls at 24 rows, and q closes it without quitting',
    async () => {
      const term = await openThree();
      await term.sendKeys(['?'], true);
      const help = await term.awaitScreen('the help', (s) => s.includes('Keys  (Esc, ? or q closes'));
      expect(help).toMatch(/lines 1-\d+ of \d+/);
      expect(rowsOn(help)).toEqual([]);
      // Page by page to its end: the keys the 80-column footer cuts off are all there.
      const total = /lines 1-\d+ of (\d+)/.exec(help)![1];
      let pages = help;
      let page = help;
      for (let turn = 0; turn < 10 && !page.includes(`-${total} of ${total}`); turn++) {
        const first = /lines (\d+)-/.exec(page)?.[1];
        await term.sendKeys(['PageDown']);
        page = await term.awaitScreen('the help scrolled', (s) => /lines (\d+)-/.exec(s)?.[1] !== first);
        pages += page;
      }
      expect(page).toContain(`-${total} of ${total}`);
      for (const key of ['x ', 'S ', 'g ', '/ ', '>, <', 'Backspace, Ctrl+U', 'p ', 'K ', 'P ']) expect(pages).toContain(`  ${key}  `);
      await term.sendKeys(['q']);
      await term.awaitScreen('the table again', (s) => rowsOn(s).length === 3 && !s.includes('Keys  ('));
      expect(await term.exitStatus()).toBeUndefined();
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '/ keeps the rows that match, says how many, Enter keeps the filter and Esc clears it; > sorts and the header says so',
    async () => {
      const term = await openThree();
      await term.sendKeys(['/'], true);
      await term.awaitScreen('the filter prompt', (s) => s.includes('filter: '));
      await term.sendKeys(['vmc'], true);
      const typed = await term.awaitScreen('only vm-c left', (s) => rowsOn(s).join() === 'demo:vm-c');
      expect(typed).toContain('1 of 3 match');
      await term.sendKeys(['Enter']);
      const kept = await term.awaitScreen('the filter kept', (s) => header(s).includes('filter "vmc": 1 of 3'));
      expect(rowsOn(kept)).toEqual(['demo:vm-c']);
      expect(kept.split('\n').find((l) => l.startsWith('›'))).toContain('demo:vm-c#serial');
      await term.sendKeys(['Escape']);
      const cleared = await term.awaitScreen('every row again', (s) => rowsOn(s).length === 3);
      expect(header(cleared)).not.toContain('filter');

      await term.sendKeys(['>'], true);
      await term.awaitScreen('sorted by name', (s) => header(s).includes('sorted by name'));
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
