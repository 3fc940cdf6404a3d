import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBrowser, windowsUrlHandler } from './browser-opener.js';

describe('the Windows URL handler', () => {
  it('is rundll32.exe under %SystemRoot%, never a bare name the current directory could answer', () => {
    expect(windowsUrlHandler({ SystemRoot: 'D:\\WINNT' })).toBe('D:\\WINNT\\System32\\rundll32.exe');
    expect(windowsUrlHandler({})).toBe('C:\\Windows\\System32\\rundll32.exe');
  });
});

describe('the browser vconsole starts', () => {
  it.skipIf(process.platform === 'win32')("gets none of vconsole's credential variables (an openrc's OS_PASSWORD)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vconsole-browser-env-'));
    const seen = join(dir, 'seen');
    const browser = join(dir, 'browser');
    await writeFile(browser, `#!/bin/sh\necho "[$OS_PASSWORD][$OS_CLOUD]" > "${seen}"\n`);
    await chmod(browser, 0o700);
    const before = { password: process.env.OS_PASSWORD, cloud: process.env.OS_CLOUD };
    Object.assign(process.env, { OS_PASSWORD: 'hunter22-pw', OS_CLOUD: 'prod' });
    try {
      const launch = await startBrowser('http://127.0.0.1:1/open/x', { VCONSOLE_BROWSER: browser }, 'linux');
      if (launch.process.exitCode === null) await once(launch.process, 'exit');
      expect(await readFile(seen, 'utf8')).toBe('[][prod]\n');
    } finally {
      for (const [name, value] of [
        ['OS_PASSWORD', before.password],
        ['OS_CLOUD', before.cloud],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
