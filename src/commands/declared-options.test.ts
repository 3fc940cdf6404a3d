// Declared options as commander sees them: the key each declaration types must be the key
// commander fills, and the parsers refuse bad input with one usage line.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { PROVIDER_OPTIONS } from '../targets/option-groups.js';
import { valueOption } from '../targets/option-group.js';
import { addFlags, commanderOption } from './flags.js';

function parsed(args: string[]): Record<string, unknown> {
  const command = addFlags(new Command('t').exitOverride().configureOutput({ writeErr: () => undefined }), ['target', 'selector']);
  command.parse(args, { from: 'user' });
  return command.opts();
}

describe('declared options on the command line', () => {
  it('fills the key each declaration names', () => {
    for (const declaration of PROVIDER_OPTIONS) expect(commanderOption(declaration).attributeName()).toBe(declaration.key);
    expect(() => commanderOption(valueOption('region', { flags: '--os-region <name>', help: '', section: 'target' }))).toThrow(
      /declared as "region", commander calls it "osRegion"/,
    );
  });

  it('parses as the declarations say: repeats, kubectl forms, choices, selectors', () => {
    expect(parsed(['-n', 'a'])).toEqual({ namespace: 'a' });
    expect(
      parsed(['-n=a', '-n', 'b', '--os-tag', 'x', '--os-tag', 'y', '-l', 'app == web', '--os-interface', 'internal', '--os-cloud', 'c']),
    ).toEqual({
      namespace: ['a', 'b'],
      osTag: ['x', 'y'],
      selector: 'app=web',
      osInterface: 'internal',
      osCloud: 'c',
    });
    expect(() => parsed(['--context', ' '])).toThrow(/it is empty: give a context name/);
    expect(() => parsed(['-l', '10.0.0.1'])).toThrow(/looks like a listen address/);
    expect(() => parsed(['--os-tag', 'a,b'])).toThrow(/bad --os-tag "a,b"/);
  });
});
