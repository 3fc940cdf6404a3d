// kubectl's `-o json|yaml|wide|name` for the commands that print a listing (list, viewers), beside
// their older `--json`: one option, one way to read it, one way to print a document.
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { outputTemplate, type OutputTemplate } from './output-template.js';
import { type FlagsOf, type OptionDeclaration, switchOption, valueOption } from '../targets/index.js';

/** What `-o` takes, in kubectl's words: a document (json, yaml), more columns (wide), or names only. */
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;
type OutputKeyword = (typeof OUTPUT_FORMATS)[number];

/** `-o FORMAT`, a template (jsonpath=, custom-columns=), else the plain table. */
export type OutputFormat = OutputKeyword | 'table' | OutputTemplate;

/** `-o`'s value: one of its words, or a template, checked (and a template parsed) as the flag is read. */
function parseOutput(text: string): OutputKeyword | OutputTemplate {
  if ((OUTPUT_FORMATS as readonly string[]).includes(text)) return text as OutputKeyword;
  const template = outputTemplate(text);
  if (template) return template;
  throw new UsageError(
    `-o ${echoInput(text)} is not an output format`,
    'give one of json, yaml, wide, name, jsonpath=TEMPLATE, custom-columns=HEADER:PATH,...',
  );
}

/** `-o, --output FORMAT`, for a listing of `name`s, and `--json` beside it: the own flags of list, viewers and ps. */
export function outputFlags(name: string) {
  return [
    valueOption<'output', OutputKeyword | OutputTemplate>('output', {
      flags: '-o, --output <format>',
      help: `output format, as kubectl's: json, yaml, wide (more columns), name (one ${name} per line), jsonpath=TEMPLATE, custom-columns=HEADER:PATH,...`,
      section: 'own',
      parse: parseOutput,
    }),
    switchOption('json', { flags: '--json', help: 'print one JSON document (the same as -o json)', section: 'own' }),
  ] as const satisfies readonly OptionDeclaration[];
}

export type OutputFlags = FlagsOf<ReturnType<typeof outputFlags>>;

/** The format the flags ask for; `--json` beside another `-o` is a contradiction, said before any work is done. */
export function outputFormat(flags: OutputFlags): OutputFormat {
  if (flags.json && flags.output && flags.output !== 'json')
    throw new UsageError(
      `--json and -o ${typeof flags.output === 'string' ? flags.output : flags.output.kind} ask for two formats`,
      'give one of them',
    );
  return flags.json ? 'json' : (flags.output ?? 'table');
}

/**
 * What JSON and YAML print as it is, though a terminal may obey it or it hides what follows: C1
 * controls (U+009B is CSI, U+009D OSC), format characters (bidi overrides) and line separators.
 * Both escape the C0 controls (ESC, BEL) themselves.
 */
const UNESCAPED = /[\u0080-\u009f\p{Cf}\u2028\u2029]/u;

/** `\uXXXX` for each of `ch`'s UTF-16 units (an astral format character is a surrogate pair): JSON's escape and YAML's double-quoted one. */
function unicodeEscape(ch: string): string {
  return [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
}

/**
 * A JSON or YAML document, which parses back to `value` exactly, with nothing a terminal obeys or
 * that hides text: the characters of UNESCAPED are written as escapes (in YAML, then, every
 * string double-quoted, where `\u` is one). yaml is loaded only when asked for.
 */
export async function documentText(value: unknown, format: 'json' | 'yaml'): Promise<string> {
  const everywhere = new RegExp(UNESCAPED.source, 'gu');
  if (format === 'json') return `${JSON.stringify(value, null, 2).replace(everywhere, unicodeEscape)}\n`;
  const { stringify } = await import('yaml');
  const text = stringify(value);
  return UNESCAPED.test(text) ? stringify(value, { defaultStringType: 'QUOTE_DOUBLE' }).replace(everywhere, unicodeEscape) : text;
}
