// Times TUI frames with many sessions: the TUI's `App` (src/tui) rendered by Ink to a
// fake terminal, fed by a ConsoleStore holding SESSIONS listening sessions. Run as its own
// process (`node --import tsx tui-frame.ts SESSIONS ROUNDS [TERMINAL_ROWS]`; without TERMINAL_ROWS the
// terminal's height is unknown and every row is drawn); prints one JSON line:
//   {"oneRow":[ms...],"allRows":[ms...],"floor":[ms...],"lines":N}
// `floor` is Ink alone drawing the same number of lines of plain text of the same width, one
// line changed per frame: what any Ink screen of that size costs here, App or not.
// A frame is timed from the store change to Ink's write of the new frame (the App's frame
// timer set to 0 ms, so that wait is one timer turn, not the 100 ms throttle).
import { EventEmitter } from 'node:events';
import { createElement, useEffect, useState } from 'react';
import { Box, Text, render, type RenderOptions } from 'ink';
import { App } from '../../src/tui/components/app.js';
import type { ConsoleHandlers } from '../../src/tui/state/requests.js';
import { ConsoleStore } from '../../src/tui/state/console-store.js';

const sessions = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 30);
const terminalRows = process.argv[4] ? Number(process.argv[4]) : undefined;

/** A terminal 140 columns wide; with no height the App draws every row (no windowing). */
class FakeTerminal extends EventEmitter {
  isTTY = true;
  columns = 140;
  rows = terminalRows;
  frames = 0;
  lastFrame = '';
  waiting: (() => void) | undefined;
  write(text: string): boolean {
    this.frames++;
    this.lastFrame = text;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
    return true;
  }
  nextFrame(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

class FakeStdin extends EventEmitter {
  isTTY = false;
  setEncoding() {}
  setRawMode() {}
  ref() {}
  unref() {}
  read() {
    return null;
  }
}

function snapshot(id: number, bytes: number) {
  return {
    id,
    name: `default/vm-${String(id).padStart(3, '0')}`,
    provider: 'kubevirt',
    state: 'listening',
    address: '127.0.0.1',
    port: 5900 + id,
    clients: 1,
    totalClients: 1,
    bytesIn: bytes,
    bytesOut: bytes >> 4,
    startedAt: Date.now() - id * 1000,
    connections: [{ id: 1, remote: '127.0.0.1:40000', state: 'open', openedAt: Date.now(), bytesIn: bytes, bytesOut: 0 }],
  };
}

const source = new EventEmitter();
const store = new ConsoleStore(source);
for (let id = 1; id <= sessions; id++) {
  const s = snapshot(id, 0);
  source.emit('added', { snapshot: () => s });
}
// The handlers are never called: no key is pressed while frames are timed.
const nothing = (): void => undefined;
const handlers: ConsoleHandlers = {
  open: nothing,
  attach: nothing,
  retry: nothing,
  close: nothing,
  screenshot: nothing,
  add: nothing,
  'save-workspace': nothing,
  paste: nothing,
  'send-key': nothing,
  power: nothing,
  'broadcast-end': nothing,
  quit: nothing,
};
/** Ink's streams, as far as Ink uses them: the fakes stand in for a terminal. */
type InkStreams = Required<Pick<RenderOptions, 'stdout' | 'stderr' | 'stdin'>>;
const inkStreams = (stdout: FakeTerminal) => ({ stdout, stderr: new FakeTerminal(), stdin: new FakeStdin() }) as unknown as InkStreams;
const stdout = new FakeTerminal();
const first = stdout.nextFrame();
const app = render(createElement(App, { store, handlers, frameMs: 0 }), {
  ...inkStreams(stdout),
  debug: true,
  patchConsole: false,
  exitOnCtrlC: false,
});
await first;
// Let mount effects (the store subscription) run before timing.
for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));

let bytes = 0;
async function timeFrame(change: () => void): Promise<number> {
  const frame = stdout.nextFrame();
  const start = performance.now();
  change();
  await frame;
  return performance.now() - start;
}

const oneRow: number[] = [];
const allRows: number[] = [];
for (let round = 0; round < rounds; round++) {
  bytes += 1 << 20;
  const id = 1 + (round % sessions);
  oneRow.push(await timeFrame(() => source.emit('traffic', snapshot(id, bytes))));
  allRows.push(
    await timeFrame(() => {
      for (let i = 1; i <= sessions; i++) source.emit('traffic', snapshot(i, bytes));
    }),
  );
}
const lines = stdout.lastFrame.split('\n').length;
app.unmount();
store.dispose();

/** `lines` lines of plain text; `bump()` changes one of them. */
let bump: (() => void) | undefined;
function PlainLines({ count, width }: { count: number; width: number }) {
  const [n, setN] = useState(0);
  useEffect(() => {
    bump = () => setN((v) => v + 1);
  }, []);
  const rows = Array.from({ length: count }, (_, i) => createElement(Text, { key: i }, `${i === 0 ? n : i} `.padEnd(width - 1, 'x')));
  return createElement(Box, { flexDirection: 'column' }, rows);
}
const plainOut = new FakeTerminal();
const plainFirst = plainOut.nextFrame();
const plain = render(createElement(PlainLines, { count: lines, width: plainOut.columns }), {
  ...inkStreams(plainOut),
  debug: true,
  patchConsole: false,
  exitOnCtrlC: false,
});
await plainFirst;
for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
const floor: number[] = [];
for (let round = 0; round < rounds; round++) {
  const frame = plainOut.nextFrame();
  const start = performance.now();
  bump?.();
  await frame;
  floor.push(performance.now() - start);
}
plain.unmount();
process.stdout.write(`${JSON.stringify({ oneRow, allRows, floor, lines })}\n`);
process.exit(0);
