/**
 * Text that reaches a terminal. Names come from users and from cloud APIs (an OpenStack
 * server name may hold anything), so everything vconsole prints goes through here first.
 */

/** C0 controls (but tab), DEL and C1 controls: each could move the cursor, recolour or ring. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
/**
 * Format characters (Unicode Cf: the bidi embeddings, overrides and isolates U+202A-202E and
 * U+2066-2069, zero-width spaces and joiners, the BOM, tags) and the line and paragraph
 * separators: invisible, yet they reorder or hide what follows (`vm-\u202Eatad` shows as
 * `vm-data`) or break a line.
 */
const FORMAT = /[\p{Cf}\u2028\u2029]/gu;

/**
 * `text` with every control character shown as a visible escape (`\e`, `\x07`, ...), so an
 * escape sequence or a bell in a name is printed, never obeyed; format characters likewise
 * (`\u202e`), so a name cannot show as another. Tabs and printable text stay.
 */
export function terminalSafe(text: string): string {
  return text
    .replace(CONTROL, (ch) => {
      const code = ch.charCodeAt(0);
      if (code === 0x1b) return '\\e';
      if (code === 0x0a) return '\\n';
      if (code === 0x0d) return '\\r';
      return `\\x${code.toString(16).padStart(2, '0')}`;
    })
    .replace(FORMAT, (ch) => {
      const code = ch.codePointAt(0) ?? 0;
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
}

/**
 * Whether `text` is one line of plain text: no control character (a tab or a newline
 * included), no format character, no line or paragraph separator. What a shell reads a line at
 * a time (completion candidates) takes only such text.
 */
export function isOneLineOfText(text: string): boolean {
  return !/[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u.test(text);
}

/** At most `max` characters of `text`, ending in `...` when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 3))}...`;
}

/** What is echoed of user input in a message: at most this many characters. */
const ECHO_MAX_CHARS = 80;

/** User input as a message may echo it: control characters visible, length capped. */
export function echoInput(text: string): string {
  return clip(terminalSafe(text), ECHO_MAX_CHARS);
}
