/**
 * The step file of `vconsole run`: a YAML list of steps, each a map of one step key (type, send,
 * wait, sleep, screenshot, power) and, beside it, an optional `timeout:`. Read whole before
 * anything is dialled: the first problem is one usage error naming FILE:LINE:COLUMN.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode, type Pair } from 'yaml';
import { UsageError } from '../errors.js';
import { parseChord, type Chord } from '../keys/chords.js';
import { BREAK } from '../keys/serial-keys.js';
import { POWER_ACTIONS, type PowerAction } from '../targets/index.js';
import { echoInput } from '../text/terminal-text.js';
import { parseDuration } from './duration.js';
import { patternFrom } from './text-matching.js';

/** A key a `send` step sends: a chord, or a serial line's BREAK. */
type StepKey = { kind: 'chord'; chord: Chord } | { kind: 'break' };

/** One step, where it is in the file (1-based line), and its own timeout when given. */
export type Step = { line: number; timeoutMs?: number } & (
  | { kind: 'type'; text: string }
  | { kind: 'send'; keys: StepKey[] }
  | { kind: 'wait'; pattern: RegExp }
  | { kind: 'sleep'; ms: number }
  | { kind: 'screenshot'; file: string }
  | { kind: 'power'; action: PowerAction }
);

type StepKind = Step['kind'];
const STEP_KINDS: readonly StepKind[] = ['type', 'send', 'wait', 'sleep', 'screenshot', 'power'];

/** The most steps a file may hold, and the most bytes: scripts, not programs. */
const MAX_STEPS = 10_000;
export const MAX_STEP_FILE_BYTES = 1024 * 1024;

/** A problem at a place of the file: turned into FILE:LINE:COLUMN by parseStepFile. */
class StepProblem extends Error {
  constructor(
    readonly offset: number,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

const at = (node: YamlNode | Pair | null | undefined): number => {
  const range = node && 'range' in node ? node.range : undefined;
  return range?.[0] ?? (node && 'key' in node ? at(node.key as YamlNode) : 0);
};

/** The steps of `source` (the text of `file`); a UsageError `FILE:LINE:COLUMN: problem` for the first problem. */
export function parseStepFile(file: string, source: string): Step[] {
  const lines = new LineCounter();
  const document = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const where = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const [syntax] = document.errors;
  if (syntax)
    throw new UsageError(
      `${where(syntax.pos[0])}: not YAML: ${syntax.message.split('\n')[0]}`,
      'fix the file: a list of steps, e.g. - type: "echo hi\\n"',
    );
  try {
    const root = document.contents;
    if (!isSeq(root))
      throw new StepProblem(at(root), 'the file is not a list of steps', 'write each step as a list item, e.g. - wait: "login:"');
    if (root.items.length === 0) throw new StepProblem(at(root), 'the file has no steps', 'add steps, e.g. - wait: "login:"');
    if (root.items.length > MAX_STEPS) throw new StepProblem(at(root), `more than ${MAX_STEPS} steps`, 'split the script');
    return root.items.map((item) => parseStep(item, (offset) => lines.linePos(offset).line));
  } catch (err) {
    if (err instanceof StepProblem) throw new UsageError(`${where(err.offset)}: ${err.message}`, err.hint);
    throw err;
  }
}

const KINDS_HINT = `each step is one of ${STEP_KINDS.join(', ')}, with an optional timeout: beside it`;

function parseStep(item: YamlNode, lineOf: (offset: number) => number): Step {
  if (!isMap(item)) throw new StepProblem(at(item), 'a step must be a map such as - sleep: 2s', KINDS_HINT);
  let timeoutMs: number | undefined;
  let step: Step | undefined;
  for (const pair of item.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as YamlNode | null;
    if (key === 'timeout') {
      timeoutMs = positiveDuration(value, 'timeout');
      continue;
    }
    if (!STEP_KINDS.includes(key as StepKind))
      throw new StepProblem(at(pair.key as YamlNode), `"${echoInput(key)}" is no step`, KINDS_HINT);
    if (step)
      throw new StepProblem(
        at(pair.key as YamlNode),
        `a step does one thing: ${step.kind} and ${key} together`,
        'give each its own - item',
      );
    step = { line: lineOf(at(item)), ...stepValue(key as StepKind, value) };
  }
  if (!step) throw new StepProblem(at(item), 'the step says what to do only with timeout:', KINDS_HINT);
  return timeoutMs === undefined ? step : { ...step, timeoutMs };
}

type StepBody = Step extends infer S ? (S extends Step ? Omit<S, 'line' | 'timeoutMs'> : never) : never;

function stepValue(kind: StepKind, value: YamlNode | null): StepBody {
  switch (kind) {
    case 'type':
      return { kind, text: text(value, kind, 'the text to type, e.g. "root\\n" (\\n is Return)', true) };
    case 'send':
      return { kind, keys: keys(value) };
    case 'wait':
      return { kind, pattern: pattern(value) };
    case 'sleep':
      return { kind, ms: duration(value, 'sleep') };
    case 'screenshot':
      return { kind, file: text(value, kind, 'a file name such as boot-{target}.png') };
    case 'power':
      return { kind, action: powerAction(value) };
  }
}

function text(value: YamlNode | null, kind: string, what: string, emptyAllowed = false): string {
  if (!isScalar(value) || typeof value.value !== 'string' || (!emptyAllowed && value.value === ''))
    throw new StepProblem(at(value), `${kind} takes a string`, `give ${what}`);
  return value.value;
}

function keys(value: YamlNode | null): StepKey[] {
  const items = isSeq(value) ? (value.items as YamlNode[]) : [value];
  if (items.length === 0) throw new StepProblem(at(value), 'send names no key', 'give keys such as [ctrl-alt-delete] or [esc, ret]');
  return items.map((item) => {
    const word = text(item, 'send', 'key names such as [ctrl-alt-delete] or [esc, ret]');
    if (word.toLowerCase() === BREAK) return { kind: 'break' };
    try {
      return { kind: 'chord', chord: parseChord(word) };
    } catch (err) {
      throw new StepProblem(at(item), (err as Error).message, 'see vconsole send --help for key names');
    }
  });
}

function pattern(value: YamlNode | null): RegExp {
  const source = text(value, 'wait', 'the text to wait for, a regular expression such as "login:"');
  try {
    return patternFrom(source);
  } catch (err) {
    throw new StepProblem(at(value), (err as Error).message.replace(/^--for /, 'wait: '), 'give a JavaScript regular expression');
  }
}

function duration(value: YamlNode | null, kind: string): number {
  const given = isScalar(value) && (typeof value.value === 'string' || typeof value.value === 'number') ? String(value.value) : undefined;
  try {
    if (given === undefined) throw new Error();
    return parseDuration(given);
  } catch {
    throw new StepProblem(at(value), `${kind} takes a duration`, 'give one such as 500ms, 2s or 5m');
  }
}

function positiveDuration(value: YamlNode | null, kind: string): number {
  const ms = duration(value, kind);
  if (ms <= 0) throw new StepProblem(at(value), `${kind} is no time at all`, 'give one such as 30s or 5m');
  return ms;
}

function powerAction(value: YamlNode | null): PowerAction {
  const word = text(value, 'power', `one of ${POWER_ACTIONS.join(', ')}`);
  const action = POWER_ACTIONS.find((a) => a === word.toLowerCase());
  if (!action) throw new StepProblem(at(value), `"${echoInput(word)}" is no power action`, `give one of ${POWER_ACTIONS.join(', ')}`);
  return action;
}
