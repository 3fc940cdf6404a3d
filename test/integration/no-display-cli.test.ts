import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browse } from '../support/browser-session.js';
import { readGreeting, REPO_ROOT, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// `open` on a jump host reached by ssh without X forwarding: no viewer can show a window, so
// none is started; the consoles are served and each gets the ssh -L line to run at home.

const FAKE_VIEWER = path.join(REPO_ROOT, 'test', 'fixtures', 'fake-viewer.mjs');
const OVER_SSH = { DISPLAY: undefined, SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 22', SSH_TTY: '/dev/pts/3', USER: 'ada' };

let binDir: string;
const running: RunningVconsole[] = [];

beforeAll(() => {
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-no-display-'));
  const script = path.join(binDir, 'fake-viewer.mjs');
  fs.copyFileSync(FAKE_VIEWER, script);
  fs.chmodSync(script, 0o755);
  fs.symlinkSync(script, path.join(binDir, 'vncviewer'));
  fs.symlinkSync(process.execPath, path.join(binDir, 'node'));
});
afterAll(() => fs.rmSync(binDir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
});

/** `open ARGS --no-tui` with the stand-in TigerVNC on PATH; `viewers()` is what it recorded. */
function open(args: string[], env: NodeJS.ProcessEnv) {
  const log = path.join(binDir, `viewers-${Math.random().toString(36).slice(2)}.jsonl`);
  const child = startVconsole(['open', ...args, '--no-tui'], { PATH: binDir, FAKE_VIEWER_LOG: log, ...env });
  running.push(child);
  const viewers = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { child, viewers };
}

const portLines = (child: RunningVconsole) =>
  child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"port"'))
    .map((line) => JSON.parse(line) as { target: string; port: number });

describe('vconsole open without a display', () => {
  it('says so once, serves every console, prints each its ssh -L line with the real port, starts no viewer', async () => {
    const { child, viewers } = open(['demo:vm-a', 'demo:vm-b'], OVER_SSH);
    await waitFor(() => portLines(child).length === 2, 'both ports');
    for (const { target, port } of portLines(child)) {
      await child.waitForStderr(
        new RegExp(
          `^ssh -L ${port}:127\\.0\\.0\\.1:${port} ada@198\\.51\\.100\\.2  # ${target}: run on your own machine, then point a VNC viewer at 127\\.0\\.0\\.1:${port}$`,
          'm',
        ),
      );
      // Served all the same: what the forwarded port reaches answers as a VNC server.
      const { text, socket } = await readGreeting(port);
      socket.destroy();
      expect(text).toBe('RFB 003.008\n');
    }
    const stderr = child.stderr();
    expect(stderr.match(/no display here/g)).toEqual(['no display here']);
    expect(stderr).toMatch(/^no display here \(an ssh session without X forwarding \(no DISPLAY\)\): no viewer is started; /m);
    expect(stderr).not.toMatch(/viewer failed|cannot open display|press r|no VNC viewer found/i);
    expect(viewers()).toEqual([]);
    expect(child.process.exitCode).toBe(null);
  });

  it('with a display, the same command starts the viewer and prints no ssh -L line', async () => {
    const { child, viewers } = open(['demo:vm-a'], { DISPLAY: ':0', USER: 'ada' });
    await waitFor(() => viewers().some((line) => line.includes('"connected"')), 'the viewer to connect');
    expect(child.stderr()).not.toMatch(/ssh -L|no display/);
  });

  it('the browser viewer: its page is published, not opened; the page port has its ssh -L line and the address is on stdout', async () => {
    const opened = path.join(binDir, `opened-${Math.random().toString(36).slice(2)}`);
    const recorder = path.join(binDir, 'record-url');
    fs.writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o755 });
    const { child } = open(['demo:vm-a', '--viewer', 'browser'], { ...OVER_SSH, VCONSOLE_BROWSER: recorder });
    const pageUrl = async () => {
      await waitFor(() => /"url"/.test(child.stdout()), 'the page address');
      const line = child
        .stdout()
        .split('\n')
        .find((l) => l.includes('"url"'));
      return JSON.parse(line ?? '{}') as { target: string; url: string };
    };
    const page = await pageUrl();
    expect(page.target).toBe('demo:vm-a');
    const pagePort = new URL(page.url).port;
    await child.waitForStderr(
      new RegExp(
        `^ssh -L ${pagePort}:127\\.0\\.0\\.1:${pagePort} ada@198\\.51\\.100\\.2  # demo:vm-a: run on your own machine, then open`,
        'm',
      ),
    );
    // The address is a secret: on stdout for the user, never in a line of stderr.
    expect(child.stderr()).not.toContain(new URL(page.url).pathname);
    expect(fs.existsSync(opened)).toBe(false);
    // Forwarded, the address opens the console's page.
    expect((await browse(page.url)).text).toContain('demo:vm-a</title>');
  });
});
