/** The part of a TTY read stream that raw mode needs (tests pass a stand-in). */
export interface RawModeInput {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/**
 * Puts a terminal in raw mode and returns the function that restores it. The restore runs at
 * most once and also on process exit, so no way out (escape, an error, a signal handled with
 * process.exit) leaves the user's terminal raw. Not a TTY: nothing to do.
 */
export function enterRawMode(input: RawModeInput, exitEvents: Pick<NodeJS.Process, 'once' | 'off'> = process): () => void {
  if (!input.isTTY || !input.setRawMode) return () => undefined;
  const wasRaw = Boolean(input.isRaw);
  input.setRawMode(true);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    exitEvents.off('exit', restore);
    input.setRawMode?.(wasRaw);
  };
  exitEvents.once('exit', restore);
  return restore;
}
