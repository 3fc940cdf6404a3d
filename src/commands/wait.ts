// `vconsole wait`: until a text appears on each console (or, with --any, on one of them).
import type { VconsoleConfig } from '../config/index.js';
import { UsageError, errorLine } from '../errors.js';
import { openTextReader, type TextReader } from '../ocr/index.js';
import type { ConsoleTarget } from '../targets/index.js';
import { terminalSafe } from '../text/terminal-text.js';
import { actingOn, kindOf } from './acting.js';
import { namingTarget, type CommandIo } from './command-io.js';
import { formatDuration } from './duration.js';
import { joiningFrom } from './joining.js';
import { patternFrom } from './text-matching.js';
import { WaitTimeoutError, waitForText, type TextMatch } from './text-watch.js';
import { DEFAULT_WAIT_TIMEOUT_MS, type WaitFlags } from './wait-flags.js';

/**
 * `vconsole wait TARGET... --for REGEX`: resolves with the exit code: 0 once the text appeared
 * (on every console, or on one with --any), each matching line on stdout; 1 when the time ran
 * out (one line naming the consoles that did not show it) or a console failed.
 */
export async function runWaitCommand(inputs: string[], flags: WaitFlags, config: VconsoleConfig, io: CommandIo): Promise<number> {
  const pattern = patternFrom(flags.for ?? '');
  const timeoutMs = flags.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
  const { password, say, via, resolving } = actingOn('wait', inputs, flags, config, io);
  try {
    const targets = await resolving;
    const screen = targets.find((target) => kindOf(target) === 'screen');
    if (flags.since !== undefined && screen)
      throw new UsageError(
        `--since is for serial lines, and ${screen.name} is a screen`,
        'wait on it without --since, in a command of its own',
      );
    const joining = joiningFrom(flags, 'wait', say);
    const reader = screen ? sharedReader() : undefined;
    const everyone = new AbortController();
    try {
      const results = await Promise.allSettled(
        targets.map(async (target) => {
          const match = await waitForText(target, pattern, timeoutMs, everyone.signal, {
            source: joining.wrap(target),
            sinceNow: flags.since === 'now',
            password,
            reader: reader?.open,
          });
          io.stdout.write(`${terminalSafe(targets.length > 1 ? `${target.name}: ${match.line}` : match.line)}\n`);
          if (flags.any) everyone.abort(new Error('another console showed the text'));
          return match;
        }),
      );
      const code = report(results, targets, flags.any === true, `${pattern}`, timeoutMs, io);
      if (reader && !(await reader.close())) io.stdout.write('', () => io.exit(code));
      return code;
    } finally {
      void reader?.close();
    }
  } finally {
    via?.close();
  }
}

/**
 * One OCR worker for every screen of the command, started by the first that needs it. `close`
 * resolves with false when the worker is still starting: its thread would keep vconsole running.
 */
function sharedReader(): { open: () => Promise<TextReader>; close: () => Promise<boolean> } {
  let reader: Promise<TextReader> | undefined;
  let settled = false;
  return {
    open: () => (reader ??= openTextReader().finally(() => (settled = true))),
    close: async () => {
      if (reader && !settled) return false;
      await (await reader?.catch(() => undefined))?.close();
      return true;
    },
  };
}

/** The exit code, and a line for each console that failed and one naming those that timed out. */
function report(
  results: readonly PromiseSettledResult<TextMatch>[],
  targets: readonly ConsoleTarget[],
  any: boolean,
  pattern: string,
  timeoutMs: number,
  io: CommandIo,
): number {
  if (any && results.some((result) => result.status === 'fulfilled')) return 0;
  const timedOut: string[] = [];
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    if (result.reason instanceof WaitTimeoutError) timedOut.push(targets[i].name);
    else io.stderr.write(`${errorLine(namingTarget(targets[i].name, result.reason))}\n`);
  });
  if (timedOut.length > 0)
    io.stderr.write(
      `${terminalSafe(`vconsole: ${pattern} did not appear within ${formatDuration(timeoutMs)} on ${timedOut.join(', ')}`)}\n`,
    );
  return results.every((result) => result.status === 'fulfilled') ? 0 : 1;
}
