// kubectl's `-o jsonpath=TEMPLATE` and `-o custom-columns=SPEC`, on the documents vconsole prints
// for `-o json` (a listing as kubectl's List: `{"kind": "List", "items": [...]}`). The template
// language is the part of kubectl's JSONPath its documentation shows: text, `{.field.field}`,
// `[N]`, `[*]`, `..` not included, `[?(@.field == "x")]` (==, !=), `{range EXPR}...{end}`, quoted
// literals `{"\n"}`, `@` for the current object. A key that is not there prints nothing, as
// `kubectl get -o jsonpath` does. Templates are parsed when the flag is read: a bad one is a usage
// error before anything is listed.
import { UsageError } from '../errors.js';
import { echoInput, terminalSafe } from '../text/terminal-text.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; at: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; equal: boolean; value: unknown };
type Node = { kind: 'text'; text: string } | { kind: 'path'; steps: Step[] } | { kind: 'range'; steps: Step[]; body: Node[] };

const badTemplate = (template: string, why: string) =>
  new UsageError(
    `bad jsonpath template "${echoInput(template)}": ${why}`,
    `see kubectl's JSONPath support, e.g. -o jsonpath='{.items[*].target}'`,
  );

/** The steps of a path like `.items[*].name`, `@.state` or `items[0]`. */
function parsePath(text: string, template: string): Step[] {
  const steps: Step[] = [];
  let rest = text.trim().replace(/^@/, '');
  while (rest.length > 0) {
    const field = /^\.?([A-Za-z_][\w-]*)/.exec(rest);
    const bracket = /^\[(\*|-?\d+|\?\(@\.([\w.-]+)\s*(==|!=)\s*("[^"]*"|'[^']*'|-?\d+(?:\.\d+)?|true|false)\s*\))\]/.exec(rest);
    if (rest === '.') break;
    const matched = field ?? bracket;
    if (!matched) throw badTemplate(template, `cannot read "${echoInput(rest)}"`);
    if (field) steps.push({ kind: 'field', name: field[1] });
    else if (bracket?.[1] === '*') steps.push({ kind: 'all' });
    else if (bracket?.[2]) {
      const literal = bracket[4].startsWith("'") ? `"${bracket[4].slice(1, -1)}"` : bracket[4];
      steps.push({ kind: 'filter', path: parsePath(bracket[2], template), equal: bracket[3] === '==', value: JSON.parse(literal) });
    } else steps.push({ kind: 'index', at: Number(bracket?.[1]) });
    rest = rest.slice(matched[0].length);
  }
  return steps;
}

/** The template's text and actions, `{range}` bodies nested. */
function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const open: Array<{ body: Node[] }> = [{ body: root }];
  let at = 0;
  while (at < template.length) {
    const start = template.indexOf('{', at);
    const body = open[open.length - 1].body;
    if (start < 0) {
      body.push({ kind: 'text', text: template.slice(at) });
      break;
    }
    if (start > at) body.push({ kind: 'text', text: template.slice(at, start) });
    const end = template.indexOf('}', start);
    if (end < 0) throw badTemplate(template, 'a { is not closed');
    const action = template.slice(start + 1, end).trim();
    at = end + 1;
    if (action.startsWith('"') || action.startsWith("'")) {
      const quoted = action.startsWith("'") ? `"${action.slice(1, -1)}"` : action;
      try {
        body.push({ kind: 'text', text: String(JSON.parse(quoted)) });
      } catch {
        throw badTemplate(template, `${echoInput(action)} is not a quoted string`);
      }
    } else if (action === 'end') {
      if (open.length === 1) throw badTemplate(template, '{end} without {range}');
      open.pop();
    } else if (action.startsWith('range ')) {
      const node: Node = { kind: 'range', steps: parsePath(action.slice('range '.length), template), body: [] };
      body.push(node);
      open.push(node);
    } else body.push({ kind: 'path', steps: parsePath(action, template) });
  }
  if (open.length > 1) throw badTemplate(template, '{range} without {end}');
  return root;
}

/** What `steps` find from `value`: each result, in order (none for a key that is not there). */
function evaluate(value: unknown, steps: readonly Step[]): unknown[] {
  let found: unknown[] = [value];
  for (const step of steps) {
    found = found.flatMap((at): unknown[] => {
      if (step.kind === 'field')
        return at !== null && typeof at === 'object' && step.name in at ? [(at as Record<string, unknown>)[step.name]] : [];
      if (!Array.isArray(at)) return [];
      if (step.kind === 'all') return at;
      if (step.kind === 'index') return step.at < 0 ? at.slice(step.at, at.length + step.at + 1) : step.at < at.length ? [at[step.at]] : [];
      return at.filter((item) => evaluate(item, step.path).some((got) => got === step.value) === step.equal);
    });
  }
  return found;
}

const shown = (value: unknown): string => terminalSafe(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));

function render(nodes: readonly Node[], value: unknown): string {
  return nodes
    .map((node) => {
      if (node.kind === 'text') return node.text;
      if (node.kind === 'path') return evaluate(value, node.steps).map(shown).join(' ');
      return evaluate(value, node.steps)
        .map((item) => render(node.body, item))
        .join('');
    })
    .join('');
}

/** A listing printed through a template: `items` are the objects `-o json` prints. */
export interface OutputTemplate {
  kind: 'jsonpath' | 'custom-columns';
  /** The whole listing (kubectl's List of `items`). */
  list(items: readonly unknown[]): string;
  /** One object, as `list -w` prints each change. */
  one(item: unknown): string;
}

/** `-o jsonpath=TEMPLATE`. */
export function jsonpathTemplate(template: string): OutputTemplate {
  const nodes = parseTemplate(template);
  return { kind: 'jsonpath', list: (items) => render(nodes, { kind: 'List', items }), one: (item) => render(nodes, item) };
}

/** `-o custom-columns=HEADER:PATH,...`: a header row, then a row per object; a value that is not there is `<none>`. */
export function customColumnsTemplate(spec: string): OutputTemplate {
  const columns = spec.split(',').map((column) => {
    const colon = column.indexOf(':');
    if (colon <= 0 || colon === column.length - 1)
      throw new UsageError(
        `bad custom-columns "${echoInput(spec)}": "${echoInput(column)}" is not HEADER:PATH`,
        'give -o custom-columns=TARGET:.target,STATE:.state',
      );
    const path = column.slice(colon + 1).replace(/^\{(.*)\}$/, '$1');
    return { header: column.slice(0, colon), steps: parsePath(path, spec) };
  });
  const row = (item: unknown) => columns.map(({ steps }) => evaluate(item, steps).map(shown).join(',') || '<none>');
  const table = (rows: string[][]) => {
    const widths = columns.map((_, i) => Math.max(...rows.map((cells) => cells[i].length)));
    return rows
      .map((cells) => `${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('   ')}\n`)
      .join('');
  };
  return {
    kind: 'custom-columns',
    list: (items) => table([columns.map((column) => column.header), ...items.map(row)]),
    one: (item) => table([row(item)]),
  };
}

/** The template an `-o` value names, or undefined when it names none (json, wide, ...). */
export function outputTemplate(value: string): OutputTemplate | undefined {
  if (value.startsWith('jsonpath=')) return jsonpathTemplate(value.slice('jsonpath='.length));
  if (value.startsWith('custom-columns=')) return customColumnsTemplate(value.slice('custom-columns='.length));
  return undefined;
}
