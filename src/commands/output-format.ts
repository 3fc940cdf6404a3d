// kubectl's `-o json|yaml|wide|name` for the commands that print a listing (list, viewers), beside
// their older `--json`: one option, one way to read it, one way to print a document.
import { Option } from 'commander';
import { UsageError } from '../errors.js';

/** What `-o` takes, in kubectl's words: a document (json, yaml), more columns (wide), or names only. */
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;

/** `-o FORMAT`, else the plain table. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | 'table';

export interface OutputFlags {
  json?: boolean;
  output?: (typeof OUTPUT_FORMATS)[number];
}

/** `-o, --output FORMAT`, for a listing of `name`s; `--json` (JSON_HELP) stays beside it. */
export function outputOption(name: string): Option {
  return new Option('-o, --output <format>', `output format, as kubectl's: wide adds columns, name prints one ${name} per line`).choices(
    OUTPUT_FORMATS,
  );
}

/** What `--json` says, wherever -o is. */
export const JSON_HELP = 'print one JSON document (the same as -o json)';

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
