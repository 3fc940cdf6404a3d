import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { ProcessLab } from './support/processes.js';
import { shellQuote, startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// What `open` opens on a real terminal, against a cluster of several namespaces: `open -A`'s
// picker opens exactly the rows picked (it once opened every VM of the cluster), and a
// selection of more than 12 consoles asks y/N first, saying how many.
const gate = requireTools(['tmux']);

const WEB = ['default/web-1', 'prod/web-2', 'prod/web-3', 'staging/web-4', 'staging/web-5', 'staging/web-6', 'qa/web-7', 'qa/web-8'];
const FARM = Array.from({ length: 13 }, (_, i) => `farm/node-${String(i + 1).padStart(2, '0')}`);

describe.skipIf(gate.skip)(gatedTitle('vconsole open: what is picked or selected on a terminal', gate), () => {
  const lab = new ProcessLab();
  let kubevirt: KubevirtFixture;
  let home: string;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    home = await lab.tempDir('selection-home');
    const vmi = (target: string, app: string) => ({ namespace: target.split('/')[0], name: target.split('/')[1], labels: { app } });
    kubevirt = await startKubevirtFixture({ vmis: [...WEB.map((t) => vmi(t, 'web')), ...FARM.map((t) => vmi(t, 'farm'))] });
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(async () => {
    await kubevirt?.close();
    await lab.cleanup();
  }, 60_000);

  /** `vconsole ARGS` in tmux; stderr to a file unless the test reads what it asks on the terminal. */
  async function inTmux(args: string[], { stderrOnTerminal = false } = {}): Promise<TmuxTerminal> {
    const dir = await lab.tempDir('tmux');
    const command = [process.execPath, VCONSOLE_BIN, ...args].map(shellQuote).join(' ');
    const run = stderrOnTerminal ? command : `${command} 2> ${shellQuote(join(dir, 'stderr'))}`;
    const env = vconsoleEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), KUBECONFIG: kubevirt.kubeconfigPath() });
    terminal = await startTmux(lab, dir, ['sh', '-c', run], { columns: 140, rows: 60, cwd: REPO_ROOT, env });
    return terminal;
  }

  const line = (screen: string, text: string) => screen.split('\n').find((l) => l.includes(text)) ?? '';
  const listening = (screen: string, target: string) => screen.split('\n').some((l) => l.includes(target) && /listening/.test(l));
  /** The VMIs vconsole read for a pre-flight so far (each console it opens reads its VMI first). */
  const preflights = () =>
    kubevirt.requests
      .filter((r) => r.method === 'GET' && /\/virtualmachineinstances\/[^/]+$/.test(r.path))
      .map((r) => r.path.split('/').slice(-3).join('/'));

  it(
    'open -A, Enter on one row: that one VM opens, no other',
    async () => {
      const before = preflights().length;
      const term = await inTmux(['open', '-A', '--viewer', 'none']);
      await term.awaitScreen(
        'the picker with every namespace',
        (s) => s.includes('Open which consoles?') && WEB.every((t) => s.includes(t)),
      );
      await term.sendKeys(['web-3'], true);
      await term.awaitScreen('prod/web-3 highlighted', (s) => line(s, 'prod/web-3').startsWith('›'));
      await term.sendKeys(['Enter']);
      const table = await term.awaitScreen('its row listening', (s) => listening(s, 'prod/web-3'));
      for (const other of [...WEB, ...FARM].filter((t) => t !== 'prod/web-3')) expect(table).not.toContain(other);
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
      // One console: the only VMI read for a pre-flight is the one picked.
      expect(new Set(preflights().slice(before))).toEqual(new Set(['prod/virtualmachineinstances/web-3']));
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'open -A, two rows marked: those two open',
    async () => {
      const term = await inTmux(['open', '-A', '--viewer', 'none']);
      await term.awaitScreen('the picker', (s) => WEB.every((t) => s.includes(t)));
      await term.sendKeys(['qa/web'], true);
      await term.awaitScreen('the qa rows', (s) => s.includes('filter: qa/web') && !s.includes('prod/web-2'));
      await term.sendKeys(['Space', 'Space']);
      await term.awaitScreen('two rows marked', (s) => s.includes('open 2 marked'));
      await term.sendKeys(['Enter']);
      const table = await term.awaitScreen('both rows listening', (s) => listening(s, 'qa/web-7') && listening(s, 'qa/web-8'));
      for (const other of WEB.filter((t) => !t.startsWith('qa/'))) expect(table).not.toContain(other);
      await term.sendKeys(['q']);
      expect(await term.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '13 consoles selected: asks y/N saying how many; N opens nothing and exits 0, y opens them',
    async () => {
      const before = preflights().length;
      const declined = await inTmux(['open', '-l', 'app=farm', '-A', '--viewer', 'none'], { stderrOnTerminal: true });
      await declined.awaitScreen('the question', (s) => s.includes('Open 13 consoles at once? [y/N]'));
      await declined.sendKeys(['n', 'Enter']);
      expect(await declined.awaitExit()).toBe('exit 0');
      expect(preflights().length).toBe(before);
      await declined.destroy();

      const accepted = await inTmux(['open', '-l', 'app=farm', '-A', '--viewer', 'none'], { stderrOnTerminal: true });
      await accepted.awaitScreen('the question', (s) => s.includes('Open 13 consoles at once? [y/N]'));
      await accepted.sendKeys(['y', 'Enter']);
      await accepted.awaitScreen('the rows listening', (s) => listening(s, FARM[0]) && listening(s, FARM[12]), 60_000);
      await accepted.sendKeys(['q']);
      expect(await accepted.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
