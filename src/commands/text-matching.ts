/**
 * What `vconsole wait` looks for, and where: a serial line's output as lines of text, and the
 * lines a screen's OCR read. A regular expression given on the command line is checked once.
 */
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

/** The longest line kept while it has no end: a prompt is short, a line that never ends is not read whole. */
export const MAX_LINE_CHARS = 4096;

/** `--for`'s text as a regular expression (JavaScript's syntax); a usage error naming it when it is not one. */
export function patternFrom(text: string): RegExp {
  if (text === '') throw new UsageError('--for is empty', "give the text to wait for, e.g. --for 'login:'");
  try {
    return new RegExp(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err);
    throw new UsageError(
      `--for ${echoInput(text)} is not a regular expression: ${why}`,
      'escape \\ ( [ { * + ? | ^ $ . to match them as text',
    );
  }
}

/** Terminal escape sequences (CSI, OSC, two-byte ones) and control characters other than the line ends: a prompt in colour is still a prompt. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

/** A line as a person reads it on a terminal: its escapes and control characters gone, its end trimmed. */
export function plainLine(raw: string): string {
  return raw.replace(ESCAPES, '').trimEnd();
}

/** The first of `lines` the pattern matches, as shown. */
export function firstMatchingLine(pattern: RegExp, lines: readonly string[]): string | undefined {
  for (const raw of lines) {
    const line = plainLine(raw);
    if (pattern.test(line)) return line;
  }
  return undefined;
}

/**
 * A serial line's output, fed as it comes, matched a line at a time; the line still being printed
 * is matched too (a prompt has no newline after it). Work is bounded by the bytes fed: the open
 * line is cut to its last MAX_LINE_CHARS.
 */
export class LineMatcher {
  private readonly decoder = new StringDecoder('utf8');
  private open = '';

  constructor(private readonly pattern: RegExp) {}

  /** The first line the output so far completes or leaves open that matches, else undefined. */
  feed(bytes: Buffer): string | undefined {
    const lines = (this.open + this.decoder.write(bytes)).split(/\r\n|\n|\r/);
    this.open = (lines.pop() ?? '').slice(-MAX_LINE_CHARS);
    return firstMatchingLine(this.pattern, [...lines, this.open]);
  }
}
