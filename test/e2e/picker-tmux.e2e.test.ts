import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { shellQuote, startTmux, unwrapped, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `vconsole open` with no target in a real terminal: the picker over what every provider
// lists (the demo VMs here; KubeVirt and OpenStack have nothing configured and say so), typed
// into as a person does, and the same picker behind `a` in the TUI.
const gate = requireTools(['tmux']);

describe.skipIf(gate.skip)(gatedTitle('vconsole open: the picker in tmux', gate), () => {
  const lab = new ProcessLab();
  let home: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    home = await lab.tempDir('picker-home');
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  /**
   * Runs `vconsole ARGS` in tmux with an empty home (no kubeconfig, no clouds.yaml, no config),
   * after a line from the shell and between two `stty -g` that record the terminal's modes.
   * With `holdShell`, the shell stays once vconsole has exited (`vconsoleExit()` says how) until
   * `releaseShell()`: tmux may drop what a program wrote last when its pane dies right after.
   */
  async function inTmux(args: string[], { holdShell = false } = {}) {
    const dir = await lab.tempDir('tmux');
    const [before, after, stderr] = [join(dir, 'stty-before'), join(dir, 'stty-after'), join(dir, 'stderr')];
    const [vconsoleStatus, released] = [join(dir, 'vconsole-status'), join(dir, 'released')];
    // stderr to a file: a program that exits at once may be gone before tmux draws its last line.
    const run = `${[process.execPath, VCONSOLE_BIN, ...args].map(shellQuote).join(' ')} 2> ${shellQuote(stderr)}`;
    const hold = holdShell
      ? `echo "exit $status" > ${shellQuote(vconsoleStatus)}; while [ ! -e ${shellQuote(released)} ]; do sleep 0.1; done; `
      : '';
    const script = `echo '${SHELL_LINE}'; stty -g > ${shellQuote(before)}; ${run}; status=$?; stty -g > ${shellQuote(after)}; ${hold}exit $status`;
    const env = vconsoleEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), KUBECONFIG: join(home, 'no-kubeconfig') });
    terminal = await startTmux(lab, dir, ['sh', '-c', script], { columns: 140, rows: 40, cwd: REPO_ROOT, env });
    const modes = async (): Promise<[string, string]> => [await readFile(before, 'utf8'), await readFile(after, 'utf8')];
    const vconsoleExit = () =>
      pollFor(async () => (await readFile(vconsoleStatus, 'utf8').catch(() => '')).trim() || undefined, {
        what: 'vconsole to exit',
        timeoutMs: 30_000,
      });
    const releaseShell = () => writeFile(released, '');
    return { term: terminal, modes, stderr: () => readFile(stderr, 'utf8'), vconsoleExit, releaseShell };
  }

  /** What the shell printed before vconsole started: the user's screen, which the picker leaves as it was. */
  const SHELL_LINE = 'the shell was here';
  const line = (screen: string, text: string) => screen.split('\n').find((l) => l.includes(text)) ?? '';
  /** A row of the session table once its console listens. */
  const listening = (screen: string, target: string) => screen.split('\n').some((l) => l.includes(target) && /listening/.test(l));

  it(
    'filter, mark two, Enter: both open in the TUI; then a, filter, Enter adds a third',
    async () => {
      const { term } = await inTmux(['open', '--viewer', 'none']);
      const picker = await term.awaitScreen('the picker with the demo VMs and why the others list nothing', (s) =>
        ['Open which consoles?', 'demo:shell#serial', 'kubevirt: ', 'openstack: '].every((text) => s.includes(text)),
      );
      expect(unwrapped(picker)).toMatch(/kubevirt: .*Kubernetes/);
      expect(picker).not.toContain('loading');
      expect(line(picker, 'demo:vm-b')).toMatch(/demo\s+Running/);

      await term.sendKeys(['vm-'], true);
      const filtered = await term.awaitScreen('the filter applied', (s) => s.includes('filter: vm-') && !s.includes('demo:shell'));
      expect(line(filtered, 'demo:vm-a')).toMatch(/^›/);
      await term.sendKeys(['Space', 'Space']);
      const marked = await term.awaitScreen('two rows marked', (s) => s.includes('open 2 marked'));
      expect(line(marked, 'demo:vm-a')).toContain('[x]');
      expect(line(marked, 'demo:vm-b')).toContain('[x]');
      expect(line(marked, 'demo:vm-c')).toContain('[ ]');
      await term.sendKeys(['Enter']);
      const table = await term.awaitScreen('both rows listening', (s) => listening(s, 'demo:vm-a') && listening(s, 'demo:vm-b'));
      expect(table).not.toContain('demo:vm-c');
      expect(table).not.toContain('Open which consoles?');

      await term.sendKeys(['a']);
      const adding = await term.awaitScreen(
        'the picker over the table',
        (s) => s.includes('Add which consoles?') && s.includes('demo:vm-c'),
      );
      expect(line(adding, 'demo:vm-a')).toMatch(/\[=\].*open already/);
      await term.sendKeys(['vmc'], true);
      await term.awaitScreen('vm-c highlighted', (s) => line(s, 'demo:vm-c').startsWith('›'));
      await term.sendKeys(['Enter']);
      await term.awaitScreen('three rows listening', (s) => ['demo:vm-a', 'demo:vm-b', 'demo:vm-c'].every((t) => listening(s, t)));
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'Esc opens nothing, exits 0 and leaves the terminal as it was',
    async () => {
      const { term, modes, vconsoleExit, releaseShell } = await inTmux(['open', '--viewer', 'none'], { holdShell: true });
      await term.awaitScreen('the picker', (s) => s.includes('demo:vm-a'));
      await term.sendKeys(['Space']);
      await term.awaitScreen('a row marked', (s) => s.includes('[x]'));
      await term.sendKeys(['Escape']);
      expect(await vconsoleExit()).toBe('exit 0');
      const [before, after] = await modes();
      expect(after).toBe(before);
      const screen = await term.awaitScreen(
        "the shell's screen back, the picker gone",
        (s) => s.includes(SHELL_LINE) && !s.includes('Open which consoles?'),
      );
      await releaseShell();
      expect(await term.awaitExit()).toBe('exit 0');
      expect(screen).not.toContain('listening');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'S saves what is open as a workspace, and open @NAME opens it again',
    async () => {
      const { term } = await inTmux(['open', 'demo:vm-a', 'demo:vm-b#serial', '--viewer', 'none']);
      await term.awaitScreen('both rows listening', (s) => listening(s, 'demo:vm-a') && listening(s, 'demo:vm-b'));
      await term.sendKeys(['S']);
      await term.awaitScreen('the workspace name prompt', (s) => s.includes('save workspace as:'));
      await term.sendKeys(['pair'], true);
      await term.sendKeys(['Enter']);
      await term.awaitScreen('the workspace saved', (s) => s.includes('saved workspace pair'));
      const config = await readFile(join(home, '.config', 'vconsole', 'config.yaml'), 'utf8');
      expect(config).toMatch(/pair:/);
      expect(config).toContain('demo:vm-b#serial');
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');

      const again = await inTmux(['open', '@pair', '--viewer', 'none']);
      const reopened = await again.term.awaitScreen(
        'the workspace open again',
        (s) => listening(s, 'demo:vm-a') && listening(s, 'demo:vm-b'),
      );
      expect(line(reopened, 'demo:vm-b')).toMatch(/serial/);
      await again.term.sendKeys(['q']);
      expect(await again.term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '--no-tui on a terminal has no picker: no target is a usage error',
    async () => {
      const { term, stderr } = await inTmux(['open', '--no-tui']);
      expect(await term.awaitExit()).toBe('exit 2');
      expect(await stderr()).toMatch(/^vconsole: missing required argument 'target'; [^\n]*\n$/);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
