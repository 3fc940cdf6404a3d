import { describeError } from '../errors.js';
import { SessionRegistry } from '../proxy/session-registry.js';
import { handleShutdownSignals } from '../proxy/shutdown.js';
import { resolveTarget } from '../targets/index.js';
import { formatSessionLog, shouldShow } from './log-lines.js';
import { consecutivePorts, exposureWarning, targetOptionsFrom, type TargetFlags } from './options.js';

export interface ProxyFlags extends TargetFlags {
  port?: number;
  listen: string;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  exit(code: number): void;
}

/** The JSON line printed per target once it listens; `port` is what `virtctl vnc --proxy-only` prints. */
export function portLine(target: string, address: string, port: number): string {
  return JSON.stringify({ target, address, port });
}

/**
 * `vconsole proxy`: one listener per target, no viewer. Every client gets a fresh upstream.
 * Prints one JSON line per target on stdout once all listen; logs go to stderr.
 * Resolves with the exit code once the proxy has shut down.
 */
export async function runProxyCommand(inputs: string[], flags: ProxyFlags, io: CommandIo): Promise<void> {
  const options = targetOptionsFrom(flags);
  const targets = inputs.map((input) => resolveTarget(input, options));
  const ports = consecutivePorts(flags.port, targets.length);
  const warning = exposureWarning(flags.listen);

  const registry = new SessionRegistry();
  registry.on('log', (entry) => {
    if (shouldShow(entry, Boolean(flags.verbose))) io.stderr.write(`${formatSessionLog(entry)}\n`);
  });
  const shutdown = handleShutdownSignals({ close: () => registry.closeAll(), exit: io.exit });

  const sessions = targets.map((target) => registry.add(target));
  const started = await Promise.allSettled(sessions.map((s, i) => s.start({ host: flags.listen, port: ports[i] })));
  const failures = started.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) {
    shutdown.dispose();
    await registry.closeAll();
    for (const failure of failures.slice(0, -1)) io.stderr.write(`vconsole: ${describeError(failure)}\n`);
    throw failures[failures.length - 1];
  }
  if (warning) io.stderr.write(`${warning}\n`);
  for (const session of sessions) {
    const s = session.snapshot();
    io.stdout.write(`${portLine(s.name, s.address!, s.port!)}\n`);
  }
}
