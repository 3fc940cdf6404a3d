import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';

/**
 * Kubernetes label selectors as kubectl takes them (`-l app=web,tier!=db`). vconsole parses
 * them only to refuse bad syntax with a clear line before any API call and to send one
 * canonical spelling: the API server does the matching.
 */

type LabelOperator = 'in' | 'notin' | 'exists' | 'absent' | 'gt' | 'lt';

/** One comma-separated part of a selector. */
interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** One value for `=`/`!=`/`<`/`>`, the set for `in`/`notin`, none for exists/absent. */
  values: string[];
}

const HINT = "use kubectl's syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key, joined by commas";
/** A label name, and a value when not empty: at most 63 characters. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME_CHARS = 63;
const MAX_PREFIX_CHARS = 253;

type Token = { kind: 'word'; text: string } | { kind: 'op'; text: '!' | '=' | '==' | '!=' | '<' | '>' | '(' | ')' | ',' };

/** Splits at operators, parentheses, commas and blanks; anything else is a word. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|==|!=|[!=<>(),]|[^\s!=<>(),]+/gy;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const part = match[0];
    if (/^\s/.test(part)) continue;
    tokens.push(
      /^(==|!=|[!=<>(),])$/.test(part)
        ? { kind: 'op', text: part as Extract<Token, { kind: 'op' }>['text'] }
        : { kind: 'word', text: part },
    );
  }
  return tokens;
}

/**
 * Parses a selector; bad syntax is one UsageError naming the offending part. An empty
 * selector (which would match everything) is refused too: leave -l out for that.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const fail = (problem: string): never => {
    throw new UsageError(`bad label selector "${echoInput(text)}": ${problem}`, HINT);
  };
  const tokens = tokenize(text);
  if (tokens.length === 0) fail('it is empty');
  let at = 0;
  const peek = () => tokens[at] as Token | undefined;
  const shown = (token: Token | undefined) => (token ? `"${echoInput(token.text)}"` : 'the end');
  const word = (what: string, after: string): string => {
    const token = tokens[at];
    if (token?.kind !== 'word') return fail(`expected ${what} after "${echoInput(after)}", found ${shown(token)}`);
    at++;
    return token.text;
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const absent = peek()?.kind === 'op' && peek()?.text === '!';
    if (absent) at++;
    const first = peek();
    if (first?.kind !== 'word') return fail(`expected a label key${absent ? ' after "!"' : ''}, found ${shown(first)}`);
    at++;
    const key = checkKey(first.text, fail);
    const next = peek();
    if (absent || !next || next.text === ',') {
      requirements.push({ key, operator: absent ? 'absent' : 'exists', values: [] });
    } else if (next.kind === 'op' && (next.text === '=' || next.text === '==' || next.text === '!=')) {
      at++;
      // `key=` selects the empty value, as in kubectl.
      const after = peek();
      const value = !after || after.text === ',' ? '' : word('a value', `${key}${next.text}`);
      requirements.push({ key, operator: next.text === '!=' ? 'notin' : 'in', values: [checkValue(value, fail)] });
    } else if (next.kind === 'op' && (next.text === '<' || next.text === '>')) {
      at++;
      const value = word('a whole number', `${key}${next.text}`);
      if (!/^-?\d+$/.test(value)) fail(`"${echoInput(value)}" after "${key}${next.text}" is not a whole number`);
      requirements.push({ key, operator: next.text === '<' ? 'lt' : 'gt', values: [value] });
    } else if (next.kind === 'word' && (next.text === 'in' || next.text === 'notin')) {
      at++;
      requirements.push({ key, operator: next.text, values: parseSet(`${key} ${next.text}`) });
    } else {
      fail(`expected an operator (=, ==, !=, in, notin) or a comma after "${echoInput(key)}", found ${shown(next)}`);
    }
    const end = peek();
    if (!end) return requirements;
    if (end.text !== ',')
      fail(`expected a comma after "${echoInput(describe(requirements[requirements.length - 1]))}", found ${shown(end)}`);
    at++;
  }

  function parseSet(head: string): string[] {
    const open = peek();
    if (open?.text !== '(') fail(`expected "(" after "${echoInput(head)}", found ${shown(open)}`);
    at++;
    const values: string[] = [];
    for (;;) {
      const token = peek();
      if (token?.text === ')' && values.length === 0) fail(`"${echoInput(head)} ()" has no values`);
      values.push(checkValue(word('a value', values.length ? `${head} (${values.join(',')},` : `${head} (`), fail));
      const sep = peek();
      if (sep?.text === ')') {
        at++;
        return values;
      }
      if (sep?.text !== ',') fail(`expected "," or ")" in "${echoInput(head)} (...)", found ${shown(sep)}`);
      at++;
    }
  }
}

function checkKey(key: string, fail: (problem: string) => never): string {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > MAX_PREFIX_CHARS || !DNS_SUBDOMAIN.test(prefix))) {
    fail(`"${echoInput(key)}" has a bad prefix (a DNS subdomain such as example.com/ is expected)`);
  }
  if (name.length > MAX_NAME_CHARS || !LABEL_NAME.test(name)) {
    fail(
      `"${echoInput(key)}" is not a label key (at most ${MAX_NAME_CHARS} letters, digits, "-", "_" and ".", starting and ending with a letter or digit)`,
    );
  }
  return key;
}

function checkValue(value: string, fail: (problem: string) => never): string {
  if (value !== '' && (value.length > MAX_NAME_CHARS || !LABEL_NAME.test(value))) {
    fail(
      `"${echoInput(value)}" is not a label value (at most ${MAX_NAME_CHARS} letters, digits, "-", "_" and ".", starting and ending with a letter or digit)`,
    );
  }
  return value;
}

/** One requirement as kubectl spells it. */
function describe(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  switch (operator) {
    case 'exists':
      return key;
    case 'absent':
      return `!${key}`;
    case 'gt':
      return `${key}>${values[0]}`;
    case 'lt':
      return `${key}<${values[0]}`;
    case 'in':
      return values.length === 1 ? `${key}=${values[0]}` : `${key} in (${values.join(',')})`;
    case 'notin':
      return values.length === 1 ? `${key}!=${values[0]}` : `${key} notin (${values.join(',')})`;
  }
}

/** The canonical spelling sent as `labelSelector` and shown in messages. */
function formatLabelSelector(requirements: readonly LabelRequirement[]): string {
  return requirements.map(describe).join(',');
}

/** Parses and re-spells a selector: what the CLI keeps from `-l`. */
export function normalizeLabelSelector(text: string): string {
  return formatLabelSelector(parseLabelSelector(text));
}
