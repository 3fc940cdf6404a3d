import { EventEmitter } from 'node:events';
import { Box, render, Text } from 'ink';
import { afterEach, describe, expect, it } from 'vitest';
import { enterFullScreen } from '../../terminal/alternate-screen.js';
import { fullScreenOutput } from './full-screen-output.js';
import { until } from '../../../test/support/tui.js';

// Real Ink frames through the full-screen stream: each starts top left (never relative to a
// cursor a resize moved), a frame as tall as the terminal does not erase the user's scrollback,
// a resize draws the whole frame afresh, and nothing is drawn once the screen is left.

class FakeTerminal extends EventEmitter {
  columns = 40;
  rows = 10;
  readonly isTTY = true;
  written = '';
  write = (chunk: string, callback?: () => void): boolean => {
    this.written += chunk;
    if (callback) setImmediate(callback);
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

const ERASE_SCROLLBACK = '\u001B[3J';
const FROM_THE_TOP = '\u001B[H\u001B[J';

function Lines({ count, label }: { count: number; label: string }) {
  return (
    <Box flexDirection="column">
      {Array.from({ length: count }, (_, i) => (
        <Text key={i}>{`${label} line ${i + 1}`}</Text>
      ))}
    </Box>
  );
}

describe('fullScreenOutput', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function mount(count: number, label = 'frame') {
    const terminal = new FakeTerminal();
    const events = new EventEmitter();
    const screen = enterFullScreen(terminal, { events });
    const frames = fullScreenOutput(terminal as unknown as NodeJS.WriteStream, screen);
    const ink = render(<Lines count={count} label={label} />, { stdout: frames.stdout, patchConsole: false, exitOnCtrlC: false });
    cleanups.push(() => {
      ink.unmount();
      frames.dispose();
      screen.leave();
    });
    return { terminal, screen, frames, ink };
  }

  it('draws each new frame from the top left, erasing what was below', async () => {
    const { terminal, ink } = mount(3, 'first');
    await until(() => terminal.written.includes('first line 3'), 'the first frame');
    const at = terminal.written.length;
    ink.rerender(<Lines count={2} label="second" />);
    await until(() => terminal.written.slice(at).includes('second line 2'), 'the second frame');
    expect(terminal.written.slice(at)).toContain(`${FROM_THE_TOP}second line 1`);
    // No erase relative to the cursor: that is what lands a few lines off after a resize.
    expect(terminal.written.slice(at)).not.toContain('\u001B[1A');
  });

  it('draws a frame as tall as the terminal without erasing the scrollback', async () => {
    const { terminal, ink } = mount(10, 'tall');
    await until(() => terminal.written.includes('tall line 10'), 'the first frame');
    ink.rerender(<Lines count={10} label="taller" />);
    await until(() => terminal.written.includes('taller line 10'), 'the next frame');
    expect(terminal.written).not.toContain(ERASE_SCROLLBACK);
    expect(terminal.written).toContain(`${FROM_THE_TOP}taller line 1`);
  });

  it('on a resize draws the whole last frame on a cleared screen, even when Ink has nothing new to draw', async () => {
    const { terminal } = mount(3, 'same');
    await until(() => terminal.written.includes('same line 3'), 'the first frame');
    const at = terminal.written.length;
    terminal.resize(60, 20); // wider and taller: the frame is the same, Ink writes nothing
    await new Promise((resolve) => setImmediate(resolve));
    const redrawn = terminal.written.slice(at);
    expect(redrawn.startsWith('\u001B[2J\u001B[H')).toBe(true);
    expect(redrawn).toContain('same line 1\nsame line 2\nsame line 3');
  });

  it('writes nothing once the screen is left, and Ink still ends', async () => {
    const { terminal, screen, ink } = mount(2, 'left');
    await until(() => terminal.written.includes('left line 2'), 'the first frame');
    screen.leave();
    const at = terminal.written.length;
    ink.rerender(<Lines count={2} label="after" />);
    ink.unmount();
    await ink.waitUntilExit();
    terminal.resize(30, 5);
    expect(terminal.written.slice(at)).toBe('');
  });
});
