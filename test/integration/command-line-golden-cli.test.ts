// The command line as users meet it, pinned: the --help of vconsole and the --help and --help-all
// of every command (hidden ones too) byte for byte from the built CLI, and every option each
// command accepts (hidden ones too) with what commander makes of it. Both are golden files under test/fixtures/command-line/:
// a change to a flag, its help or its order fails here until the golden file is regenerated on
// purpose and reviewed: `npx vitest run test/integration/command-line-golden-cli.test.ts --update`
// (a `-u` before the file takes the file as its value and runs every test).
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { providerHelp } from '../../src/commands/provider-help.js';
import { runVconsole } from '../support/cli.js';

/** One option as commander holds it: its spelling, key, value, parser, default, choices and visibility. */
function optionLine(option: Option): string {
  const value = option.required ? 'required' : option.optional ? 'optional' : 'none';
  const facts = [
    `key=${option.attributeName()}`,
    `value=${value}`,
    option.negate ? 'negate' : '',
    option.mandatory ? 'mandatory' : '',
    option.hidden ? 'hidden' : '',
    option.parseArg ? 'parser' : '',
    option.defaultValue === undefined ? '' : `default=${JSON.stringify(option.defaultValue)}`,
    option.argChoices ? `choices=${option.argChoices.join('|')}` : '',
  ].filter(Boolean);
  return `  ${option.flags}  ${facts.join(' ')}\n    ${option.description}`;
}

/** Every command of the program, with its arguments and options, in the order commander keeps them. */
function listing(program: Command): string {
  const commands = [program, ...program.commands];
  return commands
    .map((command) => {
      const args = command.registeredArguments.map((a) =>
        a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`,
      );
      const head = [command === program ? 'vconsole' : `vconsole ${command.name()}`, ...args].join(' ');
      const hidden = (command as unknown as { _hidden?: boolean })._hidden ? ' (hidden)' : '';
      const initial = `  (before parsing: ${JSON.stringify(command.opts())})`;
      return [`${head}${hidden}`, initial, ...command.options.map(optionLine)].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

describe('the command line, pinned', () => {
  it('accepts the same options on every command', async () => {
    const program = buildProgram(await providerHelp(['node', 'vconsole', 'open']));
    await expect(listing(program)).toMatchFileSnapshot('../fixtures/command-line/options.txt');
  });

  it('prints the same --help and --help-all for vconsole and every command', async () => {
    const commands = buildProgram(undefined).commands;
    const helps: string[] = [];
    const all = (command: Command) => (command.options.length === 0 ? [] : [[command.name(), '--help-all']]);
    for (const args of [['--help'], ...commands.flatMap((command) => [[command.name(), '--help'], ...all(command)])]) {
      const run = await runVconsole(args);
      expect(run.code, args.join(' ')).toBe(0);
      helps.push(`=== vconsole ${args.join(' ')} ===\n${run.stdout}${run.stderr}`);
    }
    await expect(helps.join('\n')).toMatchFileSnapshot('../fixtures/command-line/help.txt');
  }, 240_000);
});
