import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { VIEWER_PROBE_TIMEOUT_MS } from '../limits.js';
import { withoutCredentialVariables } from '../secrets.js';
import type { HostPlatform, ViewerEnvironment } from './types.js';

/** This machine's platform in the three families vconsole knows (BSDs behave like Linux). */
export function hostPlatform(platform: NodeJS.Platform = process.platform): HostPlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/**
 * Environment for a probe: no X11/Wayland display, so even a viewer that ignored `-help`
 * could not open a window; everything else as given (PATH, locale, FAKE_* test knobs).
 */
function probeEnvironment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const copy = withoutCredentialVariables(env);
  delete copy.DISPLAY;
  delete copy.WAYLAND_DISPLAY;
  return copy;
}

/**
 * Runs `file args` with no stdin, a 2 s timeout (then SIGKILL) and no window, and resolves
 * with stdout and stderr together whatever the exit code (TigerVNC's `-help` exits 1).
 * Resolves '' when the program cannot be started.
 */
export function runProbe(file: string, args: string[], env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        timeout: VIEWER_PROBE_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        windowsHide: true,
        maxBuffer: 256 * 1024,
        env: probeEnvironment(env),
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
