import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { browse } from '../support/browser-session.js';
import { waitFor } from '../support/wait.js';
import { FOLLOW_LAUNCH_PAGE_SH } from '../support/launch-page.js';

// `open --viewer browser` and the browser as the fallback viewer, through the real CLI, with a
// stand-in browser that writes down the URLs it is asked to open.
let dir: string;
let recorder: string;
let urlsFile: string;
const running: RunningVconsole[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-browser-open-'));
  urlsFile = path.join(dir, 'urls');
  recorder = path.join(dir, 'record-url');
  fs.writeFileSync(recorder, `#!/bin/sh\n${FOLLOW_LAUNCH_PAGE_SH}\nprintf '%s\\n' "$u" >> '${urlsFile}'\n`, { mode: 0o755 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
  fs.rmSync(urlsFile, { force: true });
});

const openedUrls = () => (fs.existsSync(urlsFile) ? fs.readFileSync(urlsFile, 'utf8').split('\n').filter(Boolean) : []);

function open(args: string[], env: NodeJS.ProcessEnv): RunningVconsole {
  const child = startVconsole(['open', ...args, '--no-tui'], env);
  running.push(child);
  return child;
}

describe('vconsole open in the browser', () => {
  it('--viewer browser opens a page per console, a screen and a serial line alike, and logs no secret', async () => {
    const child = open(['demo:vm-a', 'demo:vm-b#serial', '--viewer', 'browser'], { VCONSOLE_BROWSER: recorder });
    await waitFor(() => openedUrls().length === 2, 'two pages opened');
    const pages = await Promise.all(openedUrls().map((url) => browse(url)));
    expect(pages.some((page) => page.text.includes('demo:vm-a</title>'))).toBe(true);
    expect(pages.some((page) => page.text.includes('demo:vm-b#serial</title>'))).toBe(true);
    await child.waitForStderr(/\[demo:vm-a\] viewer: browser opened/);
    for (const url of [...openedUrls(), ...pages.map((page) => page.pageUrl!)]) {
      expect(child.stderr()).not.toContain(new URL(url).pathname);
      expect(child.stdout()).not.toContain(new URL(url).pathname);
    }
  });

  it('with no viewer installed, screens open in the browser, and the user is told', async () => {
    const child = open(['demo:vm-a'], { PATH: '/nonexistent', VCONSOLE_BROWSER: recorder });
    await waitFor(() => openedUrls().length === 1, 'the page opened');
    await child.waitForStderr(/no VNC viewer found: screens open in the browser instead/);
  });

  it('when no browser can be opened, prints the page URL once on stdout and keeps serving', async () => {
    const child = open(['demo:vm-a', '--viewer', 'browser'], { VCONSOLE_BROWSER: '/bin/false' });
    const lines = await child.jsonLines(2);
    const withUrl = lines.find((line) => typeof line.url === 'string');
    expect(withUrl).toMatchObject({ target: 'demo:vm-a' });
    expect((await browse(withUrl!.url as string)).status).toBe(200);
    await child.waitForStderr(/viewer failed: no browser could be opened/);
    expect(child.stderr()).not.toContain(new URL(withUrl!.url as string).pathname);
    expect(child.process.exitCode).toBeNull();
  });
});
