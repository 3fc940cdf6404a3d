import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait.js';
import { launchAddress } from './launch-page.js';

const URL_WITH_CODE = 'http://127.0.0.1:41234/p/one-time-code';

/** The launch page's file and its directory, checked private: 0600 in a 0700 directory of its own. */
function privatePage(fileUrl: string): { file: string; dir: string } {
  expect(fileUrl).toMatch(/^file:\/\//);
  expect(fileUrl).not.toContain('one-time-code');
  const file = fileURLToPath(fileUrl);
  const dir = path.dirname(file);
  expect(path.basename(dir)).toMatch(/^vconsole-browser-/);
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(file, 'utf8')).toContain(URL_WITH_CODE);
  return { file, dir };
}

describe.skipIf(process.platform === 'win32')('what the browser is started on, on Linux and macOS', () => {
  const made: string[] = [];
  const scratch = (name: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vce-launch-${name}-`));
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a private file in the temp dir that sends it on, never the address; removed after use', () => {
    const [home, tmpdir] = [scratch('home'), scratch('tmp')];
    const page = launchAddress(URL_WITH_CODE, 60_000, { platform: 'linux', home, tmpdir, snapd: false });
    const { dir } = privatePage(page.fileUrl);
    expect(path.dirname(dir)).toBe(tmpdir);
    expect(fs.readdirSync(home)).toEqual([]);
    page.remove();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('with snapd installed, in the home directory, where a snap browser (its own /tmp, no hidden directories) can read it', () => {
    const [home, tmpdir] = [scratch('home'), scratch('tmp')];
    const page = launchAddress(URL_WITH_CODE, 60_000, { platform: 'linux', home, tmpdir, snapd: true });
    const { dir } = privatePage(page.fileUrl);
    expect(path.dirname(dir)).toBe(home);
    expect(path.basename(dir).startsWith('.')).toBe(false);
    page.remove();
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it('in the temp dir when the home directory takes no new directory (here: there is none)', () => {
    const [base, tmpdir] = [scratch('home'), scratch('tmp')];
    const page = launchAddress(URL_WITH_CODE, 60_000, { platform: 'linux', home: path.join(base, 'gone'), tmpdir, snapd: true });
    const { dir } = privatePage(page.fileUrl);
    expect(path.dirname(dir)).toBe(tmpdir);
    page.remove();
  });

  it('removes itself once its lifetime is over', async () => {
    const [home, tmpdir] = [scratch('home'), scratch('tmp')];
    const page = launchAddress(URL_WITH_CODE, 1, { platform: 'linux', home, tmpdir, snapd: true });
    const { dir } = privatePage(page.fileUrl);
    await waitFor(() => !fs.existsSync(dir), 'the launch page to remove itself');
  });
});

it('on Windows: the address itself (no other user reads the command line; url.dll takes no Unix path)', () => {
  const page = launchAddress(URL_WITH_CODE, 60_000, { platform: 'win32' });
  expect(page.fileUrl).toBe(URL_WITH_CODE);
  page.remove();
});
