import { describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

// `open` with no target picks from a list on a terminal (test/e2e/picker-tmux.e2e.test.ts);
// with no terminal to ask on it stays what it always was: a usage error, one line, exit 2.
describe('vconsole open with no target and no terminal', () => {
  it.each([[['open']], [['open', '--viewer', 'none']], [['open', '--no-tui']]])('%j is a usage error saying what to do', async (args) => {
    const result = await runVconsole(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "vconsole: missing required argument 'target'; name a target (see vconsole open --help), or run it on a terminal to pick from a list\n",
    );
  });
});
