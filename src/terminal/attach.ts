import type { Duplex, Readable, Writable } from 'node:stream';
import type { EscapeKey } from './escape-key.js';

/** Why an attachment ended. */
export type DetachReason = 'escape' | 'console-closed' | 'input-ended';

export interface AttachOptions {
  /** What the user types: a raw-mode TTY, or a pipe. */
  input: Readable;
  /** Where the console's output goes. */
  output: Writable;
  /** The serial console's byte stream. */
  console: Duplex;
  /** Typing it detaches; undefined: no escape (input from a pipe). */
  escape?: EscapeKey;
  /** Every byte the console printed, as it came (a log file, a scrollback ring). */
  onOutput?(chunk: Buffer): void;
}

export interface Attachment {
  /** Resolves once: the escape was typed, the console closed, or the input ended. */
  done: Promise<{ reason: DetachReason; error?: Error }>;
  /** Ends the attachment as if the escape was typed (a signal, the TUI taking the screen back). */
  detach(): void;
}

/**
 * Joins a terminal (or pipe) to a serial console, bytes both ways with backpressure: the
 * console is paused while the terminal cannot keep up. Leaves every stream open on detach:
 * the caller decides whether the console lives on (TUI) or closes (the console command).
 */
export function attachTerminal(options: AttachOptions): Attachment {
  const { input, output, console: upstream, escape: escapeKey } = options;
  let finish!: (result: { reason: DetachReason; error?: Error }) => void;
  const done = new Promise<{ reason: DetachReason; error?: Error }>((resolve) => {
    finish = resolve;
  });
  let ended = false;

  const onInput = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const at = escapeKey ? bytes.indexOf(escapeKey.byte) : -1;
    if (at === -1) {
      if (!upstream.write(bytes)) input.pause();
      return;
    }
    if (at > 0) upstream.write(bytes.subarray(0, at));
    end({ reason: 'escape' });
  };
  const onUpstreamDrain = () => {
    if (!ended) input.resume();
  };
  const onOutputData = (chunk: Buffer) => {
    options.onOutput?.(chunk);
    if (!output.write(chunk)) upstream.pause();
  };
  const onOutputDrain = () => {
    if (!ended) upstream.resume();
  };
  let consoleError: Error | undefined;
  const onConsoleError = (err: Error) => {
    consoleError = err;
  };
  const onConsoleEnd = () => end({ reason: 'console-closed', error: consoleError });
  const onInputEnd = () => end({ reason: 'input-ended' });

  function end(result: { reason: DetachReason; error?: Error }): void {
    if (ended) return;
    ended = true;
    input.off('data', onInput);
    input.off('end', onInputEnd);
    upstream.off('drain', onUpstreamDrain);
    upstream.off('data', onOutputData);
    upstream.off('end', onConsoleEnd);
    upstream.off('close', onConsoleEnd);
    upstream.off('error', onConsoleError);
    output.off('drain', onOutputDrain);
    input.pause();
    upstream.pause();
    finish(result);
  }

  upstream.on('error', onConsoleError);
  upstream.on('end', onConsoleEnd);
  upstream.on('close', onConsoleEnd);
  upstream.on('data', onOutputData);
  upstream.on('drain', onUpstreamDrain);
  output.on('drain', onOutputDrain);
  input.on('data', onInput);
  input.on('end', onInputEnd);
  input.resume();
  upstream.resume();
  if (upstream.destroyed || upstream.readableEnded) onConsoleEnd();
  return { done, detach: () => end({ reason: 'escape' }) };
}
