import { GiveUp, pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { REPO_ROOT, VCONSOLE_BIN } from './tools.js';

export interface ProxyPortLine {
  target: string;
  address: string;
  port: number;
}

export interface RunningProxy {
  process: RunningProcess;
  /** One entry per target, in the order printed. */
  ports: ProxyPortLine[];
  /** SIGINT (what Ctrl+C sends); waits for the exit and requires exit code 0. */
  interrupt(): Promise<void>;
}

/** The JSON lines `vconsole proxy` printed so far; other lines are ignored. */
export function parsePortLines(stdout: string): ProxyPortLine[] {
  const lines: ProxyPortLine[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      const value = JSON.parse(line) as Partial<ProxyPortLine>;
      if (typeof value.port === 'number' && typeof value.target === 'string') lines.push(value as ProxyPortLine);
    } catch {
      // a partial line: the rest is still coming
    }
  }
  return lines;
}

/** The environment for vconsole and the programs it starts: no user config leaks in. */
export function vconsoleEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) {
    if (name.startsWith('OS_') && !(name in extra)) delete env[name];
  }
  if (!('KUBECONFIG' in extra)) delete env.KUBECONFIG;
  return env;
}

/**
 * Runs `node bin/vconsole.js COMMAND TARGETS... ARGS...` (`proxy`, or `open` without a
 * terminal, which prints the same lines) and resolves once it has printed a port line per
 * target. Rejects with its output if it exits first.
 */
export async function startPortCommand(
  lab: ProcessLab,
  command: 'proxy' | 'open',
  targets: readonly string[],
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProxy> {
  const proc = lab.start(`vconsole ${command}`, process.execPath, [VCONSOLE_BIN, command, ...targets, ...args], {
    cwd: REPO_ROOT,
    env: vconsoleEnv(env),
  });
  const ports = await pollFor(
    () => {
      const lines = parsePortLines(proc.stdout());
      if (lines.length >= targets.length) return lines;
      if (proc.hasExited()) throw new GiveUp(`vconsole ${command} exited before listening:\n${proc.describe()}`);
      return undefined;
    },
    { what: `vconsole ${command} to print ${targets.length} port line(s)`, timeoutMs: 60_000, detail: () => proc.describe() },
  );
  return {
    process: proc,
    ports,
    async interrupt() {
      const status = await proc.signalAndWait('SIGINT', 15_000);
      if (!status) throw new Error(`vconsole ${command} did not exit within 15 s of SIGINT:\n${proc.describe()}`);
      if (status.code !== 0)
        throw new Error(`vconsole ${command} exited with ${status.code ?? status.signal} after SIGINT:\n${proc.describe()}`);
    },
  };
}

/** `vconsole proxy TARGETS... ARGS...`, once every target listens. */
export function startProxy(
  lab: ProcessLab,
  targets: readonly string[],
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProxy> {
  return startPortCommand(lab, 'proxy', targets, args, env);
}
