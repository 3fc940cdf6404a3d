import { freeLoopbackPort, listeningPortsOf } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { REPO_ROOT, VCONSOLE_BIN } from './tools.js';
import { vconsoleEnv } from './vconsole.js';

/** What SeaBIOS answers on the serial line when ESC reaches it during its boot-menu prompt. */
export const BOOT_MENU = /Select boot device:/;
export const ESC = '\x1b';

/**
 * Serves a unix serial socket on 127.0.0.1 through socat (one connection at a time, again and
 * again), for the tcp:// target and for websockify, which takes host:port targets.
 */
export async function serveSerialOverTcp(lab: ProcessLab, socketPath: string): Promise<{ port: number; process: RunningProcess }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freeLoopbackPort();
    const socat = lab.start('socat serial bridge', 'socat', [
      `TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork`,
      `UNIX-CONNECT:${socketPath}`,
    ]);
    const listening = await pollFor(
      async () => {
        if (socat.hasExited()) throw new GiveUp('exited');
        return (await listeningPortsOf(socat.pid)).includes(port) ? true : undefined;
      },
      { what: `socat listening on ${port}`, timeoutMs: 15_000 },
    ).catch(() => false);
    if (listening) return { port, process: socat };
  }
  throw new Error('socat could not listen on a free port');
}

/**
 * Runs `vconsole console ARGS` with stdin and stdout as pipes and proves both directions on a
 * SeaBIOS serial line: ESC goes in (again every few hundred ms, since what SeaBIOS printed before
 * vconsole connected is gone and ESC only counts while its prompt waits) until the boot menu
 * comes out; then stdin ends and vconsole must drain and exit by itself. `started`, when given,
 * is awaited first (say, to reset the VM once vconsole holds its line).
 */
export async function askForBootMenu(
  lab: ProcessLab,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  started?: (proc: RunningProcess) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string; process: RunningProcess }> {
  const proc = lab.start('vconsole console', process.execPath, [VCONSOLE_BIN, 'console', ...args], {
    cwd: REPO_ROOT,
    env: vconsoleEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await started?.(proc);
  const stdin = proc.child.stdin;
  await pollFor(
    () => {
      if (proc.hasExited()) throw new GiveUp(`vconsole console exited early:\n${proc.describe()}`);
      if (BOOT_MENU.test(proc.stdout())) return true;
      stdin?.write(ESC);
      return undefined;
    },
    { what: "the boot menu on vconsole console's stdout", timeoutMs: 60_000, intervalMs: 300, detail: () => proc.describe() },
  );
  stdin?.end();
  const status = await proc.exited;
  return { code: status.code, stdout: proc.stdout(), stderr: proc.stderr(), process: proc };
}
