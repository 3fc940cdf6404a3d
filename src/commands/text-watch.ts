/**
 * Waiting for text on one console (`vconsole wait`, and the `wait` step of a script): a serial
 * line's output as it comes (what a shared line already holds first, unless `sinceNow`), or a
 * screen's text as OCR reads it from the decoded picture while updates arrive, at most once a
 * period and only when the picture changed. The console is reached as `type` reaches it: through
 * the session it already has (`source`: the target wrapped by joiningFrom), never taken over.
 */
import type { Duplex } from 'node:stream';
import { VconsoleError } from '../errors.js';
import { openTextReader, type TextReader } from '../ocr/index.js';
import type { UpstreamSource } from '../proxy/index.js';
import type { Framebuffer, RfbConsoleClient } from '../rfb/index.js';
import type { ConsoleTarget } from '../targets/index.js';
import { kindOf, readyClient } from './acting.js';
import { ChangeThrottle } from './change-throttle.js';
import { formatDuration } from './duration.js';
import { LineMatcher, firstMatchingLine } from './text-matching.js';

/** The least time between two readings of a changing screen: a prompt is seen within about this much. */
const OCR_INTERVAL_MS = 1000;
/** The line that matched, as shown (escapes gone). */
export interface TextMatch {
  line: string;
}

interface WaitOptions {
  /** How the console is reached (default: the target itself): joiningFrom(...).wrap(target). */
  source?: UpstreamSource;
  /** Serial: ignore what the line printed before the wait began. */
  sinceNow?: boolean;
  /** A tcp/unix VNC server's password. */
  password?: string;
  /** The OCR reader screens are read with (one shared by several waits); default: one of the wait's own. */
  reader?: () => Promise<TextReader>;
}

/** The text did not appear in time. */
export class WaitTimeoutError extends VconsoleError {}

/**
 * Resolves with the first line on `target`'s console that `pattern` matches; rejects with a
 * WaitTimeoutError after `timeoutMs`, with `signal`'s reason when it aborts first, or with why
 * the console could not be read.
 */
export async function waitForText(
  target: ConsoleTarget,
  pattern: RegExp,
  timeoutMs: number,
  signal: AbortSignal,
  options: WaitOptions = {},
): Promise<TextMatch> {
  // A timer of its own, not AbortSignal.timeout's: that one does not keep the process alive, and
  // a console served in-process (the demo) may be all there is left to wait on.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const both = AbortSignal.any([signal, deadline.signal]);
  const source = options.source ?? target;
  try {
    const kind = kindOf(target);
    await source.check?.(both);
    // --since now: a shared line (held here or by another vconsole) replays none of what it holds.
    const replay = options.sinceNow === true ? false : undefined;
    const stream = await source.dial({ signal: both, log: () => undefined, preserveSession: true, replay });
    stream.on('error', () => undefined);
    try {
      const line = kind === 'serial' ? await serialMatch(stream, pattern, both) : await screenMatch(stream, pattern, both, options);
      return { line };
    } finally {
      stream.destroy();
    }
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (deadline.signal.aborted) throw new WaitTimeoutError(`${pattern} did not appear within ${formatDuration(timeoutMs)}`);
    throw err;
  } finally {
    clearTimeout(timer);
    await source.release?.().catch(() => undefined);
  }
}

const asError = (reason: unknown): Error => (reason instanceof Error ? reason : new VconsoleError(String(reason)));

/** Rejects once `signal` aborts; the listener goes when `settled` settles. */
function aborted(signal: AbortSignal, settled: Promise<unknown>): Promise<never> {
  return new Promise((_, reject) => {
    const onAbort = () => reject(asError(signal.reason));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void settled.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => undefined);
  });
}

function serialMatch(stream: Duplex, pattern: RegExp, signal: AbortSignal): Promise<string> {
  const matcher = new LineMatcher(pattern);
  const found = new Promise<string>((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      const line = matcher.feed(chunk);
      if (line !== undefined) resolve(line);
    });
    stream.once('end', () => reject(new VconsoleError('the serial console ended before the text appeared')));
    stream.once('close', () => reject(new VconsoleError('the serial console closed before the text appeared')));
  });
  found.catch(() => undefined);
  return Promise.race([found, aborted(signal, found)]);
}

async function screenMatch(stream: Duplex, pattern: RegExp, signal: AbortSignal, options: WaitOptions): Promise<string> {
  const { client, framebuffer } = await readyClient(stream, options.password, signal);
  let own: TextReader | undefined;
  try {
    // The reader is waited for as the text is: a worker that never comes up must not outlast --timeout.
    const opening = options.reader ? options.reader() : openTextReader().then((reader) => (own = reader));
    opening.catch(() => undefined);
    const reader = await Promise.race([opening, aborted(signal, opening)]);
    const found = watchScreen(client, framebuffer, reader, pattern);
    found.catch(() => undefined);
    return await Promise.race([found, aborted(signal, found)]);
  } finally {
    client.close();
    await own?.close();
  }
}

/** Reads the screen now and after each change (throttled) until a line matches; rejects when the connection ends. */
function watchScreen(client: RfbConsoleClient, framebuffer: Framebuffer, reader: TextReader, pattern: RegExp): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const finish = (done: () => void) => {
      throttle.stop();
      framebuffer.off('damage', changed);
      framebuffer.off('resize', changed);
      client.off('close', closed);
      done();
    };
    const throttle = new ChangeThrottle(
      async () => {
        const text = await reader.read({ width: framebuffer.width, height: framebuffer.height, pixels: framebuffer.pixels });
        const line = firstMatchingLine(pattern, text.split('\n'));
        if (line !== undefined) finish(() => resolve(line));
      },
      OCR_INTERVAL_MS,
      (err) => finish(() => reject(asError(err))),
    );
    const changed = () => throttle.changed();
    const closed = (err?: Error) => finish(() => reject(err ?? new VconsoleError('the screen closed before the text appeared')));
    framebuffer.on('damage', changed);
    framebuffer.on('resize', changed);
    client.on('close', closed);
    throttle.changed();
  });
}
