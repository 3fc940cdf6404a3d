import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VIEWER_PROBE_TIMEOUT_MS } from '../limits.js';
import { withoutCredentialVariables } from '../secrets.js';
import type { HostPlatform, ViewerEnvironment } from './types.js';

/** This machine's platform in the three families vconsole knows (BSDs behave like Linux). */
export function hostPlatform(platform: NodeJS.Platform = process.platform): HostPlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/** The XDG places a program keeps its settings and state in: a probe gets throwaway ones. */
const XDG_STATE_VARIABLES = ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'] as const;

/**
 * Environment for a probe: no X11/Wayland display, so even a viewer that ignored `-help`
 * could not open a window; the XDG directories in `scratch` (Remmina's `--version` writes
 * ~/.config/remmina/remmina.pref and more: asking a version must leave the home as it was),
 * except for a flatpak export, which finds its user installation under XDG_DATA_HOME;
 * everything else as given (PATH, locale, FAKE_* test knobs).
 */
function probeEnvironment(env: Record<string, string | undefined>, file: string, scratch: string | undefined): NodeJS.ProcessEnv {
  const copy = withoutCredentialVariables(env);
  delete copy.DISPLAY;
  delete copy.WAYLAND_DISPLAY;
  if (scratch && !file.includes('/flatpak/exports/bin/'))
    for (const variable of XDG_STATE_VARIABLES) copy[variable] = path.join(scratch, variable.toLowerCase());
  return copy;
}

/** A private directory for one probe's XDG places (undefined when none can be made: the probe runs as before). */
function probeScratch(): string | undefined {
  try {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-probe-'));
  } catch {
    return undefined;
  }
}

/**
 * Runs `file args` with no stdin, a 2 s timeout (then SIGKILL) and no window, and resolves
 * with stdout and stderr together whatever the exit code (TigerVNC's `-help` exits 1).
 * Resolves '' when the program cannot be started.
 */
export function runProbe(file: string, args: string[], env: Record<string, string | undefined>): Promise<string> {
  const scratch = probeScratch();
  const done = new Promise<string>((resolve) => {
    const child = execFile(
      file,
      args,
      {
        timeout: VIEWER_PROBE_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        windowsHide: true,
        maxBuffer: 256 * 1024,
        env: probeEnvironment(env, file, scratch),
        encoding: 'utf8',
      },
      (_error, stdout, stderr) => {
        clearTimeout(backstop);
        resolve(`${stdout ?? ''}${stderr ?? ''}`);
      },
    );
    // execFile waits for the output pipes to close; a grandchild holding them must not stall detection.
    const backstop = setTimeout(() => resolve(''), VIEWER_PROBE_TIMEOUT_MS + 500);
    child.stdin?.end();
  });
  return scratch ? done.finally(() => fs.rmSync(scratch, { recursive: true, force: true })) : done;
}

/** The real machine as detection sees it. `env` and `platform` may be overridden (tests, `--viewer` checks). */
export function systemViewerEnvironment(
  overrides: { env?: Record<string, string | undefined>; platform?: HostPlatform; cwd?: string } = {},
): ViewerEnvironment {
  const env = overrides.env ?? process.env;
  const platform = overrides.platform ?? hostPlatform();
  return {
    platform,
    env,
    cwd: overrides.cwd ?? process.cwd(),
    fileExists: (file) => fs.statSync(file, { throwIfNoEntry: false }) !== undefined,
    isExecutable: (file) => {
      try {
        if (!fs.statSync(file).isFile()) return false;
        if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    listDir: (dir) => {
      try {
        return fs.readdirSync(dir);
      } catch {
        return [];
      }
    },
    readTextFile: (file) => {
      try {
        const stat = fs.statSync(file);
        return stat.size > 1024 * 1024 ? undefined : fs.readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
    runVersion: (file, args) => runProbe(file, args, env),
  };
}
