import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBrowser, windowsUrlHandler } from './browser-opener.js';

describe('the Windows URL handler', () => {
  it('is rundll32.exe under %SystemRoot%, never a bare name the current directory could answer', () => {
    expect(windowsUrlHandler({ SystemRoot: 'D:\\WINNT' })).toBe('D:\\WINNT\\System32\\rundll32.exe');
    expect(windowsUrlHandler({})).toBe('C:\\Windows\\System32\\rundll32.exe');
  });
});

/** Runs `body` with `changes` in process.env, as it was after. */
async function withEnv<T>(changes: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(changes).map((name) => [name, process.env[name]]));
  Object.assign(process.env, changes);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(before))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

/** How `child` ended, once it has. */
async function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  return { code: child.exitCode, signal: child.signalCode };
}

/** A program that writes what it saw of OS_PASSWORD, OS_CLOUD and its argument to `seen`. */
async function envReporter(dir: string, name: string, seen: string): Promise<string> {
  const program = join(dir, name);
  await writeFile(program, `#!/bin/sh\necho "[$OS_PASSWORD][$OS_CLOUD][$1]" > "${seen}"\n`);
  await chmod(program, 0o700);
  return program;
}

describe('the browser vconsole starts', () => {
  it.skipIf(process.platform === 'win32')("gets none of vconsole's credential variables (an openrc's OS_PASSWORD)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vconsole-browser-env-'));
    const seen = join(dir, 'seen');
    const browser = await envReporter(dir, 'browser', seen);
    try {
      await withEnv({ OS_PASSWORD: 'hunter22-pw', OS_CLOUD: 'prod' }, async () => {
        const launch = await startBrowser('http://127.0.0.1:1/open/x', { VCONSOLE_BROWSER: browser }, 'linux');
        expect(await exited(launch.process)).toEqual({ code: 0, signal: null });
      });
      expect(await readFile(seen, 'utf8')).toBe('[][prod][http://127.0.0.1:1/open/x]\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(process.platform !== 'linux' || /microsoft/i.test(release()))(
    "is the system's xdg-open when none is chosen, and it too gets none of vconsole's credential variables",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'vconsole-xdg-open-env-'));
      const seen = join(dir, 'seen');
      await envReporter(dir, 'xdg-open', seen);
      try {
        // PATH is the fake's folder alone: a system xdg-open found instead would write nothing.
        const launch = await withEnv({ OS_PASSWORD: 'hunter22-pw', OS_CLOUD: 'prod', PATH: dir }, () =>
          startBrowser('http://127.0.0.1:1/open/y', {}, 'linux'),
        );
        expect(launch.name).toBe('xdg-open');
        expect(await exited(launch.process)).toEqual({ code: 0, signal: null });
        expect(await readFile(seen, 'utf8')).toBe('[][prod][http://127.0.0.1:1/open/y]\n');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
