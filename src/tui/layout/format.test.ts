import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../proxy/types.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import {
  formatBytes,
  formatDuration,
  formatLogLine,
  formatRate,
  rowAddress,
  rowDisplayState,
  rowProblem,
  truncate,
  wrapLines,
  type ConsoleRow,
  type ViewerStatus,
} from './format.js';
import { rowSegments, tableColumns } from './table-layout.js';

function row(session: Partial<SessionSnapshot>, viewer: ViewerStatus = { state: 'none' }): ConsoleRow {
  return {
    session: sessionSnapshot(1, { name: 'demo:vm-a', startedAt: undefined, ...session }),
    viewer,
    rateIn: 0,
    rateOut: 0,
  };
}

describe('human units', () => {
  it('formats byte counts in powers of 1024 with at most one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(340 * 1024)).toBe('340 KB');
    expect(formatBytes(1.2 * 1024 * 1024)).toBe('1.2 MB');
    expect(formatBytes(1023.9 * 1024)).toBe('1.0 MB');
    expect(formatBytes(-5)).toBe('0 B');
    expect(formatBytes(Number.NaN)).toBe('0 B');
  });

  it('formats rates as bytes per second', () => {
    expect(formatRate(340 * 1024)).toBe('340 KB/s');
    expect(formatRate(0)).toBe('0 B/s');
  });

  it('formats durations with at most two units', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(45_900)).toBe('45s');
    expect(formatDuration(12 * 60_000 + 3000)).toBe('12m03s');
    expect(formatDuration(3 * 3_600_000 + 4 * 60_000)).toBe('3h04m');
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000)).toBe('2d03h');
    expect(formatDuration(-1000)).toBe('0s');
  });

  it('truncates to one line with an ellipsis', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('a long message', 6)).toBe('a lon…');
    expect(truncate('two\nlines', 20)).toBe('two lines');
  });

  it('word-wraps into a bounded number of lines', () => {
    expect(wrapLines('connection refused by 10.0.0.1:6443', 20, 2)).toEqual(['connection refused', 'by 10.0.0.1:6443']);
    expect(wrapLines('a b c d e f g h i j k l m n o p', 7, 2)).toEqual(['a b c d', 'e f g …']);
    expect(wrapLines('x'.repeat(25), 10, 3)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    expect(wrapLines('', 10, 2)).toEqual([]);
  });
});

describe('plain log lines for non-TTY output', () => {
  it('prefixes session lines with the target name and marks warnings and errors', () => {
    expect(formatLogLine({ time: 0, level: 'info', name: 'demo:vm-a', message: 'listening on 127.0.0.1:5901' })).toBe(
      '[demo:vm-a] listening on 127.0.0.1:5901',
    );
    expect(formatLogLine({ time: 0, level: 'warn', name: 'vm', message: 'slow' })).toBe('[vm] warning: slow');
    expect(formatLogLine({ time: 0, level: 'error', message: 'no viewer' })).toBe('error: no viewer');
  });

  it('shows control characters in names and messages instead of sending them to the terminal', () => {
    const line = formatLogLine({ time: 0, level: 'info', name: 'vm\u001b[31mRED\u0007', message: 'said \u001b]0;title\u0007' });
    expect(line).toBe('[vm\\e[31mRED\\x07] said \\e]0;title\\x07');
    expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('cuts out tokens and passwords whatever the message says', () => {
    expect(formatLogLine({ time: 0, level: 'info', name: 'ws://h:6080/', message: 'opening ws://h:6080/?token=s3cr3t' })).toBe(
      '[ws://h:6080/] opening ws://h:6080/?token=***',
    );
  });
});

describe('row state', () => {
  it('derives connecting, listening, viewer open/closed and error, a session error winning', () => {
    expect(rowDisplayState(row({ state: 'idle' }))).toBe('connecting');
    expect(rowDisplayState(row({ state: 'connecting' }))).toBe('connecting');
    expect(rowDisplayState(row({}))).toBe('listening');
    expect(rowDisplayState(row({}, { state: 'starting', name: 'TigerVNC' }))).toBe('listening');
    expect(rowDisplayState(row({}, { state: 'open' }))).toBe('viewer open');
    expect(rowDisplayState(row({}, { state: 'closed', exitCode: 0 }))).toBe('viewer closed');
    expect(rowDisplayState(row({ state: 'error' }, { state: 'open' }))).toBe('error');
  });

  it('keeps a console whose viewer failed listening, the viewer failure in its VIEWER cell and last error', () => {
    const failedViewer = row({}, { state: 'failed', name: 'TigerVNC', message: 'cannot open display' });
    expect(rowDisplayState(failedViewer)).toBe('listening');
    expect(rowProblem(failedViewer)).toBe('TigerVNC failed: cannot open display');
    const columns = tableColumns([failedViewer], 160);
    const s = rowSegments(failedViewer, columns, false, '3s', 160);
    expect(s.state.trim()).toBe('listening');
    expect(s.middle).toMatch(/^ failed\s/);
    expect(s.problem).toBe('TigerVNC failed: cannot open display');
    const named = row({}, { state: 'failed', name: 'TigerVNC', message: 'TigerVNC exited at once with code 1: cannot open display' });
    expect(rowProblem(named)).toBe('TigerVNC exited at once with code 1: cannot open display');
  });

  it('says no display for a viewer that cannot show here: the console listening, no failure to retry', () => {
    const noDisplay = row({}, { state: 'no-display', name: 'TigerVNC' });
    expect(rowDisplayState(noDisplay)).toBe('listening');
    expect(rowProblem(noDisplay)).toBeUndefined();
    const s = rowSegments(noDisplay, tableColumns([noDisplay], 160), false, '3s', 160);
    expect(s.middle).toMatch(/^ no display\s/);
  });
});

describe('table layout', () => {
  it('drops optional columns on a narrow terminal but keeps the essentials', () => {
    const rows = [row({})];
    const narrow = tableColumns(rows, 90).map((c) => c.key);
    expect(narrow).toEqual(expect.arrayContaining(['target', 'address', 'state', 'clients', 'in', 'out']));
    expect(narrow).not.toContain('uptime');
    const wide = tableColumns(rows, 160).map((c) => c.key);
    expect(wide).toEqual(['target', 'provider', 'address', 'type', 'state', 'viewer', 'clients', 'in', 'out', 'uptime', 'error']);
  });

  it('widens the name and viewer columns to their texts on a wide terminal', () => {
    const long = row({ name: `kubevirt:${'n'.repeat(50)}` }, { state: 'open', name: 'remote-viewer (SPICE)' });
    const columns = tableColumns([long], 300);
    const lead = rowSegments(long, columns, false, '', 300);
    expect(lead.lead).toContain(`kubevirt:${'n'.repeat(50)} `);
    expect(lead.middle).toContain(' remote-viewer (SPICE) ');
    // Narrow, the viewer's name is cut before the target's is.
    const narrow = tableColumns([long], 90);
    expect(rowSegments(long, narrow, false, '', 90).lead).toContain(`kubevirt:${'n'.repeat(50)} `);
  });

  it('never makes a line wider than the terminal', () => {
    const busy = { bytesIn: 1023 * 1024, bytesOut: 1023 * 1024 };
    const rows = [{ ...row({ name: 'x'.repeat(60), lastError: 'y'.repeat(300), ...busy }), rateIn: 1023 * 1024, rateOut: 1023 * 1024 }];
    for (const width of [80, 100, 140]) {
      const columns = tableColumns(rows, width);
      const s = rowSegments(rows[0], columns, true, '1m00s', width);
      expect((s.lead + s.state + s.middle + s.problem).length).toBeLessThanOrEqual(width);
    }
  });

  it('shows a failed session error in the traffic cells even when the error column does not fit', () => {
    const failed = row({ state: 'error', address: undefined, lastError: 'VM is stopped' });
    const columns = tableColumns([failed], 90);
    expect(columns.map((c) => c.key)).not.toContain('error');
    expect(rowSegments(failed, columns, false, '', 90).problem).toBe('VM is stopped');
    // Narrower, the traffic columns are gone: the error takes what is left after the others.
    const narrow = tableColumns([failed], 56);
    expect(narrow.map((c) => c.key)).not.toContain('in');
    expect(narrow.map((c) => c.key)).not.toContain('error');
    expect(rowSegments(failed, narrow, false, '', 56).problem).toBe('VM i…');
  });

  it('shows - as the address of a failed session, whose port was given up', () => {
    const failed = row({ state: 'error', address: '127.0.0.1', port: 5901, lastError: 'the console was refused' });
    const columns = tableColumns([failed], 120);
    const address = columns.findIndex((c) => c.key === 'address');
    expect(address).toBeGreaterThanOrEqual(0);
    expect(rowAddress(failed.session)).toBeUndefined();
    expect(rowSegments(failed, columns, false, '', 120).lead).not.toContain('5901');
    expect(rowAddress(row({ state: 'listening', address: '127.0.0.1', port: 5901 }).session)).toBe('127.0.0.1:5901');
  });
});
