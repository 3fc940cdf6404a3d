import { VconsoleError, describeError, errorLine } from '../errors.js';
import { SessionClosedError, type ConsoleSession } from '../proxy/console-session.js';
import { DuplicateConsoleError, SessionRegistry } from '../proxy/session-registry.js';
import { SilentConsoleError } from '../proxy/shared-source.js';
import { handleShutdownSignals } from '../proxy/shutdown.js';
import type { UpstreamSource } from '../proxy/types.js';
import type { VconsoleConfig } from '../config.js';
import { sessionLogPrinter } from './log-lines.js';
import { consecutivePorts, type ListenFlags, type TargetFlags } from './flags.js';
import { withShareDefault, type ShareFlags } from './share-flags.js';
import { recordingFrom, withRecordSharing, type RecordFlags } from './record-flags.js';
import { exposureNotice, passwordNotice, sharingFrom } from './sharing.js';
import { listenAddressFrom, targetOptionsFrom } from './target-options.js';
import type { SelectionFlags } from './selector-flags.js';
import { selectTargets } from './target-selection.js';
import { expandWorkspace } from '../workspaces.js';

export interface ProxyFlags extends TargetFlags, ListenFlags, ShareFlags, RecordFlags, SelectionFlags {}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  exit(code: number): void;
}

/** The JSON line printed per target once it listens; `port` is what `virtctl vnc --proxy-only` prints. */
export function portLine(target: string, address: string, port: number, type?: string): string {
  return JSON.stringify({ target, address, port, ...(type ? { type } : {}) });
}

/**
 * `vconsole proxy`: one listener per console, no viewer. Every client gets a fresh upstream.
 * Prints one JSON line per console on stdout once all listen; logs go to stderr. Resolves
 * once every listener is up (the process then runs until a signal ends it through io.exit);
 * rejects with the error of a target that could not be served, after closing the others.
 */
export async function runProxyCommand(inputs: string[], flags: ProxyFlags, config: VconsoleConfig, io: CommandIo): Promise<void> {
  ({ inputs, flags } = expandWorkspace(inputs, flags, config));
  const options = targetOptionsFrom(flags, config);
  const targets = await selectTargets(inputs, flags, options, config);
  const listen = listenAddressFrom(flags.listen, config);
  const sharing = await sharingFrom(withRecordSharing(withShareDefault(flags, config.defaults.share)), listen);
  const recording = await recordingFrom(flags);
  const warning = exposureNotice(listen, sharing);

  const registry = new SessionRegistry();
  registry.on('log', sessionLogPrinter(io.stderr, Boolean(flags.verbose)));
  const shutdown = handleShutdownSignals({ close: () => registry.closeAll(), exit: io.exit });

  const sessions = addOnce(registry, targets.map((target) => sharing.wrap(recording.wrap(target))), (text) => io.stderr.write(`${text}\n`));
  sessions.forEach(sharing.follow);
  const ports = consecutivePorts(flags.port, sessions.length);
  let noticed = false;
  const notices = () => {
    if (noticed) return;
    noticed = true;
    if (warning) io.stderr.write(`${warning}\n`);
    const password = passwordNotice(sharing);
    if (password) io.stderr.write(`${password}\n`);
  };
  // A shared console waits for its first picture: each port is printed once its console is
  // ready, so that a slow or silent one holds no other back.
  const early = sessions.some((s) => sharing.hubOf(s) !== undefined);
  const printed = new Set<ConsoleSession>();
  const started = await Promise.allSettled(sessions.map((s, i) => s.start({ host: listen, port: ports[i] }).then((bound) => {
    if (early) {
      notices();
      io.stdout.write(`${portLine(s.name, bound.address, bound.port, s.source.consoleType)}\n`);
      printed.add(s);
    }
    return bound;
  })));
  const failures: unknown[] = [];
  const silent: unknown[] = [];
  const listening: { session: ConsoleSession; address: string; port: number }[] = [];
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') listening.push({ session: sessions[i], ...result.value });
    else if (result.reason instanceof DuplicateConsoleError) io.stderr.write(`${describeError(result.reason)}\n`);
    // A console that went silent while starting is dropped with its line; it holds no other hostage.
    else if (result.reason instanceof SilentConsoleError) silent.push(namingTarget(sessions[i].name, result.reason));
    // A session closed while it started: a shutdown is under way, not a failure.
    else if (!(result.reason instanceof SessionClosedError)) failures.push(namingTarget(sessions[i].name, result.reason));
  });
  if (listening.length === 0) failures.push(...silent);
  else for (const dropped of silent) io.stderr.write(`${errorLine(dropped)}\n`);
  if (failures.length > 0) {
    shutdown.dispose();
    await registry.closeAll();
    for (const failure of failures.slice(0, -1)) io.stderr.write(`${errorLine(failure)}\n`);
    throw failures[failures.length - 1];
  }
  if (listening.length === 0) return; // closed by a signal before anything listened
  notices();
  for (const { session, address, port } of listening) {
    if (!printed.has(session)) io.stdout.write(`${portLine(session.name, address, port, session.source.consoleType)}\n`);
  }
}

/**
 * A session per console, in the order named; a console named again (same text, an alias,
 * a form that resolves to the same name) is said once through `notice` and skipped.
 */
export function addOnce(registry: SessionRegistry, targets: UpstreamSource[], notice: (text: string) => void): ConsoleSession[] {
  return targets.flatMap((target) => {
    try {
      return [registry.add(target)];
    } catch (err) {
      if (!(err instanceof DuplicateConsoleError)) throw err;
      notice(describeError(err));
      return [];
    }
  });
}

/**
 * The error with the target's name in front, once: providers leave the name out of their
 * errors, this edge puts it in. Exit code and hint stay.
 */
export function namingTarget(name: string, err: unknown): VconsoleError {
  if (err instanceof VconsoleError) return new VconsoleError(`${name}: ${err.message}`, { exitCode: err.exitCode, hint: err.hint, cause: err });
  return new VconsoleError(`${name}: ${describeError(err)}`, { cause: err });
}
