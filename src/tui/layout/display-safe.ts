import { eastAsianWidth } from 'get-east-asian-width';
import type { SessionSnapshot } from '../../proxy/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { Thumbnail } from '../thumbnails/thumbnail.js';

/**
 * Text that reaches the TUI from outside (target names from users and cloud APIs, errors,
 * viewer output, serial lines) made safe to print: control and format characters (bidi
 * overrides, zero-width ones) shown, never obeyed; and measured in terminal columns, not
 * characters, so a name in wide (East Asian) characters or emoji cannot overflow its tile.
 */

export function safeText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : terminalSafe(text);
}

export function safeThumbnail(thumbnail: Thumbnail): Thumbnail {
  if (thumbnail.type === 'lines') return { type: 'lines', lines: thumbnail.lines.map(terminalSafe) };
  if (thumbnail.type === 'none') return { type: 'none', reason: terminalSafe(thumbnail.reason) };
  return thumbnail;
}

/** The snapshot with every text a row or log line shows from it made terminal-safe. */
export function safeSnapshot(snapshot: SessionSnapshot): SessionSnapshot {
  return {
    ...snapshot,
    name: terminalSafe(snapshot.name),
    provider: terminalSafe(snapshot.provider),
    consoleType: safeText(snapshot.consoleType),
    address: safeText(snapshot.address),
    lastError: safeText(snapshot.lastError),
  };
}

/** One column a character, one character a grapheme. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

interface UnicodeTables {
  /** Code points that take no column of their own: combining marks, format characters, Hangul vowel and final jamo. */
  zeroWidth: RegExp;
  /** A grapheme a terminal draws as a two-column emoji: emoji presentation, or text presentation turned by U+FE0F. */
  emoji: RegExp;
  graphemes: Intl.Segmenter;
}

let tables: UnicodeTables | undefined;

/**
 * Made on the first text that is not printable ASCII: ICU's grapheme rules and property sets
 * take milliseconds to load, which every `open` paid at start, before its viewer was launched.
 */
function unicodeTables(): UnicodeTables {
  return (tables ??= {
    zeroWidth: /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff\ud7b0-\ud7ff]$/u,
    emoji: /\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f|\p{Regional_Indicator}{2}/u,
    graphemes: new Intl.Segmenter(undefined, { granularity: 'grapheme' }),
  });
}

/** The columns one grapheme takes: that of its first code point that takes any, 2 for an emoji. */
function graphemeColumns(segment: string): number {
  const { emoji, zeroWidth } = unicodeTables();
  if (emoji.test(segment)) return 2;
  for (const ch of segment) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
    if (!zeroWidth.test(ch)) return eastAsianWidth(code);
  }
  return 0;
}

/** The columns `text` takes on a terminal: 2 for a wide (East Asian) character or emoji, 0 for a combining mark. */
export function displayColumns(text: string): number {
  // Printable ASCII takes one column a character: the common case, measured without the tables.
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let columns = 0;
  for (const { segment } of unicodeTables().graphemes.segment(text)) columns += graphemeColumns(segment);
  return columns;
}

/** The longest start of `text` that fits `width` columns, cut between whole characters (graphemes). */
export function clipColumns(text: string, width: number): string {
  if (displayColumns(text) <= width) return text;
  if (PRINTABLE_ASCII.test(text)) return text.slice(0, Math.max(0, width));
  let used = 0;
  let end = 0;
  for (const { segment, index } of unicodeTables().graphemes.segment(text)) {
    const columns = graphemeColumns(segment);
    if (used + columns > width) break;
    used += columns;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
