import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from './support/poll.js';
import { commandLine, descendantPids, ProcessLab } from './support/processes.js';
import { shellQuote, startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `vconsole open` full screen, as k9s and htop are: the TUI draws on the terminal's alternate
// screen with the cursor hidden, redraws whole on a resize, and whichever way it ends (q,
// Ctrl+C, SIGTERM, SIGHUP, a crash) the user gets back the shell's screen as it was before,
// cursor shown, terminal cooked, with only what vconsole printed after leaving (an error).
const gate = requireTools(['tmux']);

/** What the shell printed before `open`: it must be on screen again once vconsole ends. */
const BEFORE = ['the shell before open: line 1', 'the shell before open: line 2'];
const TARGETS = ['demo:screen', 'demo:shell#serial'];

/**
 * A test-only fault, loaded with `node --import`: SIGUSR2 makes the running vconsole throw
 * (CRASH_WITH=exception) or reject a promise nobody handles (CRASH_WITH=rejection).
 */
const CRASH_PRELOAD = `process.on('SIGUSR2', () => {
  if (process.env.CRASH_WITH === 'rejection') void Promise.reject(new Error('injected rejection'));
  else setImmediate(() => { throw new Error('injected exception'); });
});
`;

describe.skipIf(gate.skip)(gatedTitle('vconsole open full screen in tmux', gate), () => {
  const lab = new ProcessLab();
  let home: string;
  let preload: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    home = await lab.tempDir('full-screen-home');
    preload = join(home, 'crash-on-sigusr2.mjs');
    await writeFile(preload, CRASH_PRELOAD);
  });
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  /**
   * The shell prints BEFORE, runs `open`, then says how vconsole exited and whether the terminal
   * is still raw, and stays (a dead pane is marked so, its cursor hidden, by tmux).
   */
  async function openInTmux(
    size: { columns: number; rows: number },
    env: NodeJS.ProcessEnv = {},
    flags: string[] = [],
    targets: string[] = TARGETS,
  ): Promise<TmuxTerminal> {
    const node = [process.execPath, `--import=${preload}`, VCONSOLE_BIN, 'open', ...targets, '--viewer', 'none', ...flags];
    const script = [
      `printf '%s\\n' ${BEFORE.map(shellQuote).join(' ')}`,
      node.map(shellQuote).join(' '),
      'echo "vconsole exited $?"',
      'case $(stty -a) in *-icanon*) echo "terminal left raw";; *) echo "terminal cooked";; esac',
      'exec sleep 600',
    ].join('; ');
    const vars = vconsoleEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), KUBECONFIG: join(home, 'no-kubeconfig'), ...env });
    terminal = await startTmux(lab, await lab.tempDir('tmux'), ['sh', '-c', script], { ...size, cwd: REPO_ROOT, env: vars });
    return terminal;
  }

  /** A target's table row: `› demo:screen  demo  127.0.0.1:…` (not the detail line or the log); a narrow table may cut the name (`demo:scre…`). */
  const rowsOf = (screen: string, target: string) =>
    screen.split('\n').filter((line) => line.startsWith(`› ${target.slice(0, 9)}`) || line.startsWith(`  ${target.slice(0, 9)}`));
  const bothListening = (screen: string) =>
    ['demo:screen', 'demo:shell'].every((target) => rowsOf(screen, target).some((row) => row.includes('listening')));

  async function awaitTable(term: TmuxTerminal): Promise<string> {
    return term.awaitScreen('both rows listening', bothListening);
  }

  /** The vconsole process (the shell's child), to send signals to it alone. */
  function vconsolePid(term: TmuxTerminal): Promise<number> {
    return pollFor(
      async () => {
        for (const pid of await descendantPids(term.pid)) if ((await commandLine(pid))?.includes(VCONSOLE_BIN)) return pid;
        return undefined;
      },
      { what: 'the vconsole process in the pane' },
    );
  }

  /** Once vconsole has ended: the shell's lines after it. */
  const afterExit = (term: TmuxTerminal) =>
    term.awaitScreen('the shell after vconsole', (s) => /^terminal (cooked|left raw)$/m.test(s), 30_000);

  /** The screen's lines without tmux's padding. */
  const linesOf = (screen: string) => screen.replace(/\n+$/, '').split('\n');

  const WAYS_OUT: { how: string; env?: NodeJS.ProcessEnv; end(term: TmuxTerminal, pid: number): Promise<void> | void; exit: number }[] = [
    { how: 'q', end: (term) => term.sendKeys(['q']), exit: 0 },
    { how: 'Ctrl+C', end: (term) => term.sendKeys(['C-c']), exit: 0 },
    { how: 'SIGTERM', end: (_term, pid) => void process.kill(pid, 'SIGTERM'), exit: 0 },
    { how: 'SIGHUP', end: (_term, pid) => void process.kill(pid, 'SIGHUP'), exit: 0 },
    { how: 'an uncaught exception', env: { CRASH_WITH: 'exception' }, end: (_term, pid) => void process.kill(pid, 'SIGUSR2'), exit: 1 },
    { how: 'an unhandled rejection', env: { CRASH_WITH: 'rejection' }, end: (_term, pid) => void process.kill(pid, 'SIGUSR2'), exit: 1 },
  ];

  for (const way of WAYS_OUT) {
    it(
      `after ${way.how} the shell's screen is back as it was, cursor shown and terminal cooked`,
      async () => {
        const term = await openInTmux({ columns: 120, rows: 30 }, way.env);
        const table = await awaitTable(term);
        expect(table).not.toContain(BEFORE[0]);
        expect(await term.display('#{alternate_on} #{cursor_flag}')).toBe('1 0');

        await way.end(term, await vconsolePid(term));
        const screen = await afterExit(term);
        const lines = linesOf(screen);
        expect(await term.display('#{alternate_on} #{cursor_flag}'), screen).toBe('0 1');
        // Nothing of the TUI stays behind: the shell's lines, then what came after vconsole.
        expect(lines.slice(0, BEFORE.length), screen).toEqual(BEFORE);
        expect(lines.slice(-2), screen).toEqual([`vconsole exited ${way.exit}`, 'terminal cooked']);
        expect(screen).not.toMatch(/listening|demo:screen/);
        if (way.exit === 0) expect(lines, screen).toHaveLength(BEFORE.length + 2);
        // A crash's error is printed once the screen is back, where the user can read it.
        else expect(screen).toContain(`Error: injected ${way.env?.CRASH_WITH}`);
      },
      E2E_TEST_TIMEOUT_MS,
    );
  }

  it(
    'a resize from 200x50 to 80x24 and back redraws the whole frame: one header, one row per console, nothing stale',
    async () => {
      const term = await openInTmux({ columns: 200, rows: 50 });
      const wide = await awaitTable(term);
      const heading = (screen: string) => screen.split('\n').filter((line) => /^\s+TARGET\s/.test(line));
      /** The frame drawn once: the header on top and only there, the table heading once, each console's row once. */
      const drawnOnce = (screen: string) =>
        /^vconsole\s/.test(screen) &&
        screen.split('\n').filter((line) => /^vconsole\s/.test(line)).length === 1 &&
        heading(screen).length === 1 &&
        rowsOf(screen, 'demo:screen').length === 1 &&
        rowsOf(screen, 'demo:shell').length === 1;
      expect(drawnOnce(wide), wide).toBe(true);

      await term.resize(80, 24);
      // The narrow table has other columns: its heading tells the 80-column frame from the wide one.
      await term.awaitScreen('the frame redrawn at 80x24', (s) => drawnOnce(s) && heading(s)[0] !== heading(wide)[0]);

      await term.resize(200, 50);
      // Back at 200 columns the frame is the wide one again, from the top, with no line left of the narrow one.
      const again = await term.awaitScreen('the frame redrawn at 200x50', (s) => drawnOnce(s) && heading(s)[0] === heading(wide)[0]);
      const filled = (screen: string) => screen.split('\n').filter((line) => line.trim() !== '').length;
      expect(filled(again), again).toBe(filled(wide));
      expect(await term.display('#{alternate_on} #{cursor_flag}')).toBe('1 0');

      await term.sendKeys(['q']);
      expect(linesOf(await afterExit(term)).slice(0, BEFORE.length)).toEqual(BEFORE);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "a table as tall as an 80x24 terminal, grown to 120x40 and quit: no row of it on the shell's screen",
    async () => {
      const many = Array.from({ length: 30 }, (_, i) => `demo:vm-${String(i + 1).padStart(2, '0')}`);
      const term = await openInTmux({ columns: 80, rows: 24 }, {}, ['--yes'], many);
      await term.awaitScreen('a full table', (s) => rowsOf(s, 'demo:vm-01').some((row) => row.includes('listening')));
      await term.resize(120, 40);
      // 40 rows show more of the table than 24 did.
      await term.awaitScreen('the table at 120x40', (s) => /^[› ] demo:vm-15\s/m.test(s));
      await term.sendKeys(['q']);
      const screen = await afterExit(term);
      expect(linesOf(screen), screen).toEqual([...BEFORE, 'vconsole exited 0', 'terminal cooked']);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'an attached serial console gets a cursor on the alternate screen, ^] brings the table back, q the shell',
    async () => {
      const term = await openInTmux({ columns: 120, rows: 30 });
      await awaitTable(term);
      await term.sendKeys(['Down', 'Enter']);
      await term.awaitScreen('the demo shell prompt', (s) => s.includes('root@shell:~#'));
      expect(await term.display('#{alternate_on} #{cursor_flag}')).toBe('1 1');
      await term.sendKeys(['C-]']);
      await term.awaitScreen('the table again', (s) => bothListening(s) && !s.includes('root@shell:~#'));
      expect(await term.display('#{alternate_on} #{cursor_flag}')).toBe('1 0');
      await term.sendKeys(['q']);
      const screen = await afterExit(term);
      // What the console printed stayed on the alternate screen, off the shell's.
      expect(linesOf(screen), screen).toEqual([...BEFORE, 'vconsole exited 0', 'terminal cooked']);
      expect(await term.display('#{alternate_on} #{cursor_flag}')).toBe('0 1');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "--no-tui stays line output, on the shell's screen",
    async () => {
      const term = await openInTmux({ columns: 120, rows: 30 }, {}, ['--no-tui']);
      const screen = await term.awaitScreen(
        'the port lines',
        (s) => s.includes('"target":"demo:screen"') && s.includes('"target":"demo:shell'),
      );
      expect(linesOf(screen).slice(0, BEFORE.length)).toEqual(BEFORE);
      expect(await term.display('#{alternate_on}')).toBe('0');
      process.kill(await vconsolePid(term), 'SIGTERM');
      const after = await afterExit(term);
      // The lines stay where they were printed, between the shell's and what came after.
      expect(linesOf(after).slice(0, linesOf(screen).length), after).toEqual(linesOf(screen));
      expect(linesOf(after).slice(-2), after).toEqual(['vconsole exited 0', 'terminal cooked']);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
