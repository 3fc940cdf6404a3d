import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ProcessLab } from './support/processes.js';
import { startTmux, type TmuxTerminal } from './support/tmux.js';
import { E2E_TEST_TIMEOUT_MS, REPO_ROOT, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// The README's quick start, as a newcomer runs it: `npm run demo` is the first thing anyone
// types. The build half runs in CI before these tests (rebuilding dist/ here would pull it from
// under the tests running beside this one), so this runs the rest of the script as written in
// package.json, in a real terminal: three consoles in the TUI, q, exit 0, the shell's screen back.
const gate = requireTools(['tmux']);

/** The `demo` script without its leading `npm run build &&`, split into words. */
function demoCommand(): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toMatch(/npm install && npm run demo/);
  const [build, run] = scripts.demo.split(/\s*&&\s*/);
  expect(build).toBe('npm run build');
  return run.split(/\s+/).map((word) => (word === 'node' ? process.execPath : word));
}

describe.skipIf(gate.skip)(gatedTitle("the README's quick start (npm run demo) in tmux", gate), () => {
  const lab = new ProcessLab();
  let terminal: TmuxTerminal | undefined;
  afterEach(async () => {
    await terminal?.destroy();
    terminal = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  it(
    'shows the three demo consoles listening, and q leaves with exit 0',
    async () => {
      const home = await lab.tempDir('quick-start-home');
      const env = vconsoleEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), KUBECONFIG: join(home, 'no-kubeconfig') });
      terminal = await startTmux(lab, await lab.tempDir('tmux'), demoCommand(), { columns: 120, rows: 30, cwd: REPO_ROOT, env });
      const screen = await terminal.awaitScreen(
        'the three demo consoles listening',
        (s) =>
          ['demo:vm-a', 'demo:vm-b', 'demo:vm-c'].every((name) => s.includes(name)) &&
          (s.match(/listening on 127\.0\.0\.1:\d+/g) ?? []).length >= 3,
      );
      expect(screen.split('\n')[0]).toMatch(/^vconsole +3 consoles/);
      await terminal.sendKeys(['q']);
      expect(await terminal.awaitExit()).toBe('exit 0');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
