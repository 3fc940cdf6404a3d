// kubectl's `-o json|yaml|wide|name` for the commands that print a listing (list, viewers), beside
// their older `--json`: one option, one way to read it, one way to print a document.
import { UsageError } from '../errors.js';
import { switchOption, valueOption, type FlagsOf, type OptionDeclaration } from '../targets/option-group.js';

/** What `-o` takes, in kubectl's words: a document (json, yaml), more columns (wide), or names only. */
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;

/** `-o FORMAT`, else the plain table. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | 'table';

/** `-o, --output FORMAT`, for a listing of `name`s, and `--json` beside it: the own flags of list, viewers and ps. */
export function outputFlags(name: string) {
  return [
    valueOption<'output', (typeof OUTPUT_FORMATS)[number]>('output', {
      flags: '-o, --output <format>',
      help: `output format, as kubectl's: wide adds columns, name prints one ${name} per line`,
      section: 'own',
      choices: OUTPUT_FORMATS,
    }),
    switchOption('json', { flags: '--json', help: 'print one JSON document (the same as -o json)', section: 'own' }),
  ] as const satisfies readonly OptionDeclaration[];
}

export type OutputFlags = FlagsOf<ReturnType<typeof outputFlags>>;

/** The format the flags ask for; `--json` beside another `-o` is a contradiction, said before any work is done. */
export function outputFormat(flags: OutputFlags): OutputFormat {
  if (flags.json && flags.output && flags.output !== 'json')
    throw new UsageError(`--json and -o ${flags.output} ask for two formats`, 'give one of them');
  return flags.json ? 'json' : (flags.output ?? 'table');
}

/** A JSON or YAML document; yaml is loaded only when asked for. */
export async function documentText(value: unknown, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  const { stringify } = await import('yaml');
  return stringify(value);
}
