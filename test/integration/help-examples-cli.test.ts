// The JSON a command's --help shows must be what the command prints: every JSON example in every
// command's help is compared, key by key and type by type, with what that command prints for a
// demo console. A help example with no run below fails, so a new one cannot go untested.
import { afterEach, describe, expect, it } from 'vitest';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';

/** How to make each command print the JSON its help shows, against the demo provider. */
const RUNS: Record<string, string[]> = {
  proxy: ['proxy', 'demo:vm-a'],
  open: ['open', 'demo:vm-a', '--no-tui', '--viewer', 'none'],
};

const running: RunningVconsole[] = [];
afterEach(() => {
  while (running.length) running.pop()!.kill();
});

/** The commands `vconsole --help` lists. */
async function commands(): Promise<string[]> {
  const help = (await runVconsole(['--help'])).stdout;
  const section = help.slice(help.indexOf('Commands:'));
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]).filter((name) => name !== 'help');
}

/** Each line of the text that is a JSON object, parsed. */
function jsonExamples(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) return [];
    try {
      return [JSON.parse(trimmed) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Keys and the type of each value: what a script reading the JSON relies on. */
const shape = (json: Record<string, unknown>) => Object.fromEntries(Object.entries(json).map(([k, v]) => [k, typeof v]));

describe('JSON examples in --help-all', () => {
  it('each shows the keys and value types its command prints', async () => {
    const names = await commands();
    expect(names).toEqual(expect.arrayContaining(['proxy', 'open', 'list', 'viewers']));
    const withExamples: string[] = [];
    // Every command's help at once: one after the other, two dozen processes outlast the test's
    // time on a busy 2-core machine.
    const helps = await Promise.all(names.map(async (name) => ({ name, text: (await runVconsole([name, '--help-all'])).stdout })));
    for (const { name, text } of helps) {
      const examples = jsonExamples(text);
      if (examples.length === 0) continue;
      withExamples.push(name);
      expect(RUNS[name], `${name} --help shows JSON: add how to print it to RUNS`).toBeDefined();
      const child = startVconsole(RUNS[name]);
      running.push(child);
      const [printed] = await child.jsonLines(1);
      for (const example of examples) expect(shape(example), `${name} --help`).toEqual(shape(printed));
    }
    expect(withExamples.sort()).toEqual(Object.keys(RUNS).sort());
  }, 120_000);
});
