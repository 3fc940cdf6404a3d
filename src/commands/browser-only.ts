// A console only a browser shows (Nova's rdp-html5 and webmks) has no bytes a local port could
// carry: `proxy`, `screenshot` and `console` refuse it in one line that says what to run instead.
import { consoleKind } from '../console-kinds/index.js';
import { UsageError } from '../errors.js';
import type { ConsoleTarget } from '../targets/index.js';

/** Whether the target's console is a page its platform serves (its kind's carriage is `browser`). */
export function isBrowserOnly(target: Pick<ConsoleTarget, 'facts'>): boolean {
  return consoleKind(target.facts.consoleType)?.carriage === 'browser';
}

/**
 * Throws a usage error (exit 2) naming the first browser-only target: what the user asked for
 * cannot be done, which is known before anything is dialled, and `vconsole open` can do it.
 */
export function refuseBrowserOnly(
  targets: readonly ConsoleTarget[],
  command: 'proxy' | 'screenshot' | 'console' | 'type' | 'send' | 'wait' | 'run',
): void {
  const target = targets.find(isBrowserOnly);
  if (!target) return;
  const label = consoleKind(target.facts.consoleType)?.label ?? target.facts.consoleType;
  throw new UsageError(
    `${target.name}: its ${label} console is a web page the cloud serves, which no local port can carry (vconsole ${command} needs one)`,
    `open it in the browser: vconsole open ${target.input}#${target.facts.consoleType}`,
  );
}
