/**
 * Writing to a console and letting go of it without losing the last of what was written: an
 * action's bytes flushed, then the console given time to close its side.
 */
import type { Duplex } from 'node:stream';

/** How long a console may take to close its side once vconsole has closed its own. */
const CLOSING_MS = 2_000;

/**
 * Resolves with what `acting` resolves with once everything written has left and the console has
 * closed its side too (or CLOSING_MS passed): a socket destroyed with data still queued, or
 * with the console's updates unread, could lose the last keys on their way.
 */
export async function finished<T>(stream: Duplex, acting: Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await acting;
  } catch (err) {
    // Stopped or failed: what was sent (a held key let go) still leaves before the socket goes.
    await flushed(stream);
    throw err;
  }
  await writeAll(stream, Buffer.alloc(0));
  const closed = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CLOSING_MS);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  stream.end();
  await closed;
  return result;
}

/** Resolves once what was written has left (or CLOSING_MS passed, or the stream failed). */
function flushed(stream: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, CLOSING_MS);
    stream.write(Buffer.alloc(0), () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Writes `bytes` and resolves once the stream has taken them (flushed to the socket). */
export function writeAll(stream: Duplex, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(bytes, (err) => (err ? reject(err) : resolve()));
  });
}
