import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { displayHere } from '../../viewers/display.js';
import { NoDisplayReport, sshForwardCommand } from './no-display.js';
import type { OpenView } from './views.js';

// Issue 26: without a display, each console gets the exact ssh -L line and, for the browser
// viewer, the page's address, readable in an 80x24 TUI (a line's end is cut there).

function report(useTui: boolean) {
  const shown: Parameters<OpenView['show']>[0][] = [];
  const view: OpenView = { show: (event) => void shown.push(event), suspend: () => Promise.resolve(), resume: () => {}, close: () => {} };
  const stdout = new PassThrough();
  const noDisplay = new NoDisplayReport(
    { shows: false, reason: 'an ssh session without X forwarding (no DISPLAY)', login: { user: 'administrator', host: '198.51.100.2' } },
    { view: () => view, useTui, stdout, nameOf: () => 'prod/windows-server-2022' },
  );
  return { noDisplay, shown, stdout };
}

const URL_WITH_SECRET = 'http://127.0.0.1:34811/open/FUawbirGTn7pd4aXYm3S3A';

describe('the no-display lines', () => {
  it("a console's line starts with the whole ssh -L command", () => {
    const { noDisplay, shown } = report(true);
    noDisplay.console(1, { host: '127.0.0.1', port: 5901, title: 'prod/windows-server-2022', consoleType: 'vnc' });
    expect(shown).toEqual([
      {
        type: 'log',
        level: 'info',
        message:
          'ssh -L 5901:127.0.0.1:5901 administrator@198.51.100.2  # prod/windows-server-2022: run on your own machine, then point a VNC viewer at 127.0.0.1:5901',
      },
    ]);
  });

  it("in the TUI, the browser page's port gets its ssh -L line in the log and the notice starts with the page's address", () => {
    const { noDisplay, shown } = report(true);
    noDisplay.page(1, URL_WITH_SECRET);
    const log = shown.filter((event) => event.type === 'log');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      message: expect.stringMatching(/^ssh -L 34811:127\.0\.0\.1:34811 administrator@198\.51\.100\.2 {2}# /),
    });
    // The address holds the page's secret: in the notice, for the user's eyes, never in the log.
    expect(JSON.stringify(log)).not.toContain('FUawbirGTn7pd4aXYm3S3A');
    const notice = shown.find((event) => event.type === 'notice');
    expect(notice).toMatchObject({ text: expect.stringMatching(/^http:\/\/127\.0\.0\.1:34811\/open\/FUawbirGTn7pd4aXYm3S3A {2}# /) });
  });

  it('names the ssh port the user came in on when it is not 22 (issue 36 item 9)', () => {
    const env = { SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 2222', SSH_TTY: '/dev/pts/3', USER: 'ada' };
    const verdict = displayHere({ platform: 'linux', env }, () => 'jump-1');
    if (verdict.shows) throw new Error('an ssh session without DISPLAY shows no window');
    expect(sshForwardCommand(verdict.login, '127.0.0.1', 5901)).toBe('ssh -L 5901:127.0.0.1:5901 -p 2222 ada@198.51.100.2');
    const onPort22 = displayHere(
      { platform: 'linux', env: { ...env, SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 22' } },
      () => 'jump-1',
    );
    if (onPort22.shows) throw new Error('an ssh session without DISPLAY shows no window');
    expect(sshForwardCommand(onPort22.login, '127.0.0.1', 5901)).toBe('ssh -L 5901:127.0.0.1:5901 ada@198.51.100.2');
  });
});
