import { autoOrder } from '../console-kinds/index.js';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { CONSOLE_TYPES, type ConsoleType, type ConsoleTypeChoice, type TargetOptions } from './types.js';

/** `a, b or c`, for hints. */
export function oneOf(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** `--type` or a `#TYPE` suffix: vnc, serial, spice or auto. */
export function parseConsoleType(text: string, shownAs = `"${text}"`): ConsoleTypeChoice {
  const type = text.toLowerCase();
  if (type === 'auto' || (CONSOLE_TYPES as readonly string[]).includes(type)) return type as ConsoleTypeChoice;
  throw new UsageError(`unknown console type ${echoInput(shownAs)}`, `use ${oneOf([...CONSOLE_TYPES, 'auto'])}`);
}

const TYPE_SUFFIX = /#([a-z]*)$/i;

/**
 * `vm-a#serial` -> `vm-a` and `serial`: one `open` can mix console types. The suffix is never
 * sent anywhere (a websocket URL's fragment would not be either).
 */
export function splitConsoleType(raw: string): { text: string; consoleType?: ConsoleTypeChoice } {
  const match = TYPE_SUFFIX.exec(raw);
  if (!match) return { text: raw };
  return { text: raw.slice(0, match.index), consoleType: parseConsoleType(match[1], `"#${match[1]}"`) };
}

/**
 * The console a provider that cannot look at the VM opens: the one asked for, or for `auto`
 * the first it offers in `auto`'s order (a plain socket or websocket does not say what it carries).
 */
export function fixedConsoleType(options: TargetOptions, offered: readonly ConsoleType[]): ConsoleType {
  const asked = options.consoleType ?? 'auto';
  if (asked !== 'auto') return asked;
  const [first] = autoOrder(offered);
  if (first === undefined)
    throw new UsageError(
      `--type auto picks none of ${oneOf(offered)}`,
      `name the console type (${oneOf(offered.map((type) => `#${type}`))})`,
    );
  return first;
}
