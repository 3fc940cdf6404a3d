import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { VconsoleError, describeError } from '../../errors.js';
import type { ConsoleTarget } from '../../targets/types.js';
import type { BrowserLaunch } from '../../viewers/browser/browser-opener.js';
import { openBrowserPage, openBrowserPages, pageOutput, type PageOutput } from './browser-only.js';

// `open`'s browser-only consoles without a cloud: a target that hands out a page URL, an opener
// that exits as told, and what the user is shown.
const PAGE = 'https://nova.example:6083/?token=5ecret-t0ken';

function pageTarget(
  url: () => Promise<string> = () => Promise.resolve(PAGE),
  consoleType: ConsoleTarget['facts']['consoleType'] = 'rdp',
): ConsoleTarget {
  return {
    provider: 'openstack',
    name: 'openstack:win-1',
    input: 'os:win-1',
    facts: { consoleType },
    dial: () => Promise.reject(new Error('no port')),
    capabilities: { browserUrl: url },
  };
}

/** An opener whose process exits with `code` (undefined: still running). */
function opener(code: number | undefined): (url: string) => Promise<BrowserLaunch> {
  return () => {
    const child = Object.assign(new EventEmitter(), { exitCode: code ?? null, signalCode: null }) as unknown as ChildProcess;
    return Promise.resolve({ name: 'xdg-open', process: child });
  };
}

function recorded(): PageOutput & { lines: string[]; addresses: string[] } {
  const lines: string[] = [];
  const addresses: string[] = [];
  return {
    lines,
    addresses,
    say: (text) => lines.push(text),
    error: (err) => lines.push(`error: ${describeError(err)}`),
    address: (_name, url) => addresses.push(url),
  };
}

describe('openBrowserPage', () => {
  it('hands the opener exactly the page URL and says so without it', async () => {
    const opened: string[] = [];
    const out = recorded();
    const start = (url: string) => (opened.push(url), opener(0)(url));
    expect(await openBrowserPage(pageTarget(), out, { env: {}, startBrowser: start })).toBe(true);
    expect(opened).toEqual([PAGE]);
    expect(out.lines).toEqual(['[openstack:win-1] viewer: browser opened (the RDP console page)']);
    expect(out.addresses).toEqual([]);
  });

  it('xdg-open finding no browser (exit 3): the address is given once, and no line holds it', async () => {
    const out = recorded();
    expect(await openBrowserPage(pageTarget(), out, { env: {}, startBrowser: opener(3) })).toBe(true);
    expect(out.addresses).toEqual([PAGE]);
    expect(out.lines).toEqual([
      "[openstack:win-1] viewer failed: no browser could be opened (xdg-open exited with code 3); open the RDP console page's address by hand",
    ]);
  });

  it('an opener that cannot start: its error is said without the URL it was given', async () => {
    const out = recorded();
    const start = () => Promise.reject(Object.assign(new Error(`spawn failed for ${PAGE}`), { code: 'EPERM' }));
    await openBrowserPage(pageTarget(), out, { env: { VCONSOLE_BROWSER: '/opt/browser' }, startBrowser: start });
    expect(out.lines.join('\n')).not.toContain('5ecret-t0ken');
    expect(out.addresses).toEqual([PAGE]);
  });

  it('every target a page and none could be had: one error to end open with', async () => {
    const out = recorded();
    const failing = pageTarget(() => Promise.reject(new VconsoleError('Unavailable console type rdp.')));
    await expect(openBrowserPages({ named: [failing], selected: [] }, out, { env: {}, startBrowser: opener(0) })).rejects.toThrow(
      'the target could not be opened',
    );
    expect(out.lines).toEqual(['error: openstack:win-1: Unavailable console type rdp.']);
  });

  it('leaves the consoles with a port to open, in their order', async () => {
    const vnc = { ...pageTarget(), name: 'demo:vm-a', facts: { consoleType: 'vnc' as const } };
    const result = await openBrowserPages({ named: [pageTarget(), vnc], selected: [] }, recorded(), { env: {}, startBrowser: opener(0) });
    expect(result).toEqual({ named: [vnc], selected: [], onlyPages: false });
  });
});

describe('pageOutput', () => {
  it('shows the address in the TUI once it shows, else as a JSON line on stdout, never on stderr', () => {
    const written = { stdout: '', stderr: '' };
    const io = {
      stdout: { write: (t: string) => (written.stdout += t) },
      stderr: { write: (t: string) => (written.stderr += t) },
      exit: () => undefined,
    } as never;
    const notices: string[] = [];
    const shown: { view?: { notice(text: string): void } } = {};
    const output = pageOutput(io, false, () => shown.view);
    output.address('openstack:win-1', PAGE);
    expect(written.stdout).toBe(`${JSON.stringify({ target: 'openstack:win-1', url: PAGE })}\n`);
    shown.view = { notice: (text) => notices.push(text) };
    output.address('openstack:win-1', PAGE);
    expect(notices).toEqual([`openstack:win-1: open ${PAGE} in a browser on this machine`]);
    expect(written.stderr).toBe('');
  });
});
