import { EventEmitter } from 'node:events';
import { render } from 'ink';
import type { ReactElement } from 'react';

/**
 * Renders an Ink element on a terminal of a fixed size (ink-testing-library's is always 100
 * columns and has no rows), keeping each frame as Ink wrote it, colour codes and all.
 */
export function renderSized(element: ReactElement, columns: number, rows: number) {
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    frames: [] as string[],
    write(chunk: string): boolean {
      stdout.frames.push(chunk);
      return true;
    },
  });
  // debug: every frame is written whole, not as a diff of the one before.
  const instance = render(element, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  return {
    lastFrame: (): string => stdout.frames.at(-1) ?? '',
    frameCount: (): number => stdout.frames.length,
    /** The terminal is resized to `newColumns` x `newRows`, as a window would be. */
    resize: (newColumns: number, newRows: number): void => {
      Object.assign(stdout, { columns: newColumns, rows: newRows });
      stdout.emit('resize');
    },
    unmount: (): void => instance.unmount(),
  };
}
