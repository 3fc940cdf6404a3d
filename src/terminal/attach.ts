import { EventEmitter } from 'node:events';
import type { Duplex, Readable, Writable } from 'node:stream';
import type { EscapeKey } from './escape-key.js';

/** What a terminal attaches to: a serial line (SerialLine) or a stream made to look like one. */
export interface AttachableLine {
  write(bytes: Buffer): unknown;
  on(event: 'output', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: (error?: Error) => void): unknown;
  off(event: 'output', listener: (chunk: Buffer) => void): unknown;
  off(event: 'end', listener: (error?: Error) => void): unknown;
}

/** A byte stream (a socket to a local serial port) as a line: its data is output, its close the end. */
export function streamLine(stream: Duplex): AttachableLine {
  const line = new EventEmitter<{ output: [Buffer]; end: [Error | undefined] }>();
  let failure: Error | undefined;
  stream.on('data', (chunk: Buffer) => line.emit('output', chunk));
  stream.on('error', (err) => {
    failure = err;
  });
  stream.once('close', () => line.emit('end', failure));
  return Object.assign(line, { write: (bytes: Buffer) => stream.write(bytes) });
}

/** Why an attachment ended. */
type DetachReason = 'escape' | 'console-closed' | 'input-ended';

interface AttachOptions {
  /** What the user types: a raw-mode TTY, or a pipe. */
  input: Readable;
  /** Where the console's output goes. */
  output: Writable;
  /** The serial console, open. */
  line: AttachableLine;
  /** Typing it detaches; undefined: no escape (input from a pipe). */
  escape?: EscapeKey;
  /** Written to `output` first: what the VM printed while nobody was attached. */
  replay?: Buffer;
}

interface Attachment {
  /** Resolves once: the escape was typed, the console ended, or the input ended. */
  done: Promise<{ reason: DetachReason; error?: Error }>;
  /** Ends the attachment as if the escape was typed (a signal, the TUI taking the screen back). */
  detach(): void;
}

/**
 * Joins a terminal (or a pipe) to a serial console: what is typed goes to the VM, byte for
 * byte (Ctrl+C included), until the escape key; what the VM prints goes to `output`. Leaves
 * the line open on detach: the caller decides whether it lives on (TUI) or closes.
 */
export function attachTerminal(options: AttachOptions): Attachment {
  const { input, output, line, escape: escapeKey } = options;
  let finish!: (result: { reason: DetachReason; error?: Error }) => void;
  const done = new Promise<{ reason: DetachReason; error?: Error }>((resolve) => {
    finish = resolve;
  });
  let ended = false;

  const onInput = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const at = escapeKey ? bytes.indexOf(escapeKey.byte) : -1;
    if (at === -1) {
      line.write(bytes);
      return;
    }
    if (at > 0) line.write(bytes.subarray(0, at));
    end({ reason: 'escape' });
  };
  const onOutput = (chunk: Buffer) => {
    output.write(chunk);
  };
  const onEnd = (error?: Error) => end({ reason: 'console-closed', error });
  const onInputEnd = () => end({ reason: 'input-ended' });

  function end(result: { reason: DetachReason; error?: Error }): void {
    if (ended) return;
    ended = true;
    input.off('data', onInput);
    input.off('end', onInputEnd);
    line.off('output', onOutput);
    line.off('end', onEnd);
    input.pause();
    finish(result);
  }

  if (options.replay && options.replay.length > 0) output.write(options.replay);
  line.on('output', onOutput);
  line.on('end', onEnd);
  input.on('data', onInput);
  input.on('end', onInputEnd);
  input.resume();
  return { done, detach: () => end({ reason: 'escape' }) };
}
