// What a newcomer reads first: each command's --help fits a screen, names what it leaves out and
// ends by pointing at --help-all, which lists every flag the command takes; the root --help names
// every provider and lays its two columns out straight. Run against the built CLI.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { providerHelp } from '../../src/commands/provider-help.js';
import { runVconsole } from '../support/cli.js';

/** A screen: what a command's short --help may take, in lines. */
const SCREEN_LINES = 50;

const program = buildProgram(await providerHelp(['node', 'vconsole', 'open']));
const commands = program.commands.filter((command) => !(command as unknown as { _hidden?: boolean })._hidden);

async function help(args: string[]): Promise<string> {
  const run = await runVconsole(args);
  expect(run.code, args.join(' ')).toBe(0);
  return run.stdout;
}

describe('each command --help', () => {
  for (const command of commands) {
    const name = command.name();
    it(`vconsole ${name} --help fits ${SCREEN_LINES} lines; --help-all lists every flag`, async () => {
      const short = await help([name, '--help']);
      expect(short.trimEnd().split('\n').length).toBeLessThanOrEqual(SCREEN_LINES);
      // A command without flags has no --help-all: its --help is all there is.
      const all = command.options.length === 0 ? short : await help([name, '--help-all']);
      const flags = command.options.filter((option) => !option.hidden).map((option) => option.flags);
      expect(flags.filter((flag) => !all.includes(`  ${flag}  `) && !all.includes(`  ${flag}\n`))).toEqual([]);
      const missing = flags.filter((flag) => !short.includes(`  ${flag}`));
      if (missing.length > 0) {
        expect(short.trimEnd().split('\n').at(-1)).toBe(`vconsole ${name} --help-all shows every flag and what it does.`);
        expect(short).toMatch(/\nMore flags: for /);
      } else expect(all).toBe(short);
    });
  }
});

describe('the flags --help leaves out', () => {
  it('are still suggested for a mistyped flag', async () => {
    const run = await runVconsole(['open', 'demo:vm-a', '--sahre']);
    expect(run).toMatchObject({ code: 2, stderr: "vconsole: unknown option '--sahre' (Did you mean --share?)\n" });
  });
});

describe('vconsole --help', () => {
  it('names every provider', async () => {
    const text = await help(['--help']);
    for (const provider of ['KubeVirt', 'OpenStack', 'Proxmox VE', 'libvirt']) expect(text.split('Commands:')[0]).toContain(provider);
  });

  it("lines virtctl's and kubectl's spellings up in two columns, two spaces apart at least", async () => {
    const block = (await help(['--help'])).split('Coming from virtctl and kubectl:\n')[1].trimEnd().split('\n');
    const column = block[0].search(/ \S+ --type/) + 1;
    const crooked = block.filter((line) => line.slice(column - 2, column) !== '  ' || line[column] === ' ');
    expect(crooked).toEqual([]);
  });
});
