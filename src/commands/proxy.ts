import { VconsoleError, describeError } from '../errors.js';
import { SessionRegistry } from '../proxy/session-registry.js';
import { handleShutdownSignals } from '../proxy/shutdown.js';
import type { VconsoleConfig } from '../config.js';
import { sessionLogPrinter } from './log-lines.js';
import { consecutivePorts, exposureWarning, type TargetFlags } from './flags.js';
import { listenAddressFrom, resolveTargets, targetOptionsFrom } from './target-options.js';

export interface ProxyFlags extends TargetFlags {
  port?: number;
  listen?: string;
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
export async function runProxyCommand(inputs: string[], flags: ProxyFlags, config: VconsoleConfig, io: CommandIo): Promise<void> {
  const options = targetOptionsFrom(flags, config);
  const targets = resolveTargets(inputs, options, config);
  const ports = consecutivePorts(flags.port, targets.length);
  const listen = listenAddressFrom(flags.listen, config);
  const warning = exposureWarning(listen);

  const registry = new SessionRegistry();
  registry.on('log', sessionLogPrinter(io.stderr, Boolean(flags.verbose)));
  const shutdown = handleShutdownSignals({ close: () => registry.closeAll(), exit: io.exit });

  const sessions = targets.map((target) => registry.add(target));
  const started = await Promise.allSettled(sessions.map((s, i) => s.start({ host: listen, port: ports[i] })));
  const failures = started.flatMap((r, i) => (r.status === 'rejected' ? [namingTarget(sessions[i].name, r.reason)] : []));
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

/** The error with the target's name in front, unless the message already starts with it. */
function namingTarget(name: string, err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith(name)) return err;
  if (err instanceof VconsoleError) return new VconsoleError(`${name}: ${message}`, { exitCode: err.exitCode, hint: err.hint, cause: err.cause ?? err });
  return new VconsoleError(`${name}: ${describeError(err)}`, { cause: err });
}
