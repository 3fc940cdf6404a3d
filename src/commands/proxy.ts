// The proxy command alone: ports for other viewers, no viewer of its own. What it shares with
// open, console, screenshot and replay lives in command-io.ts.
import { VconsoleError, describeError, errorLine } from '../errors.js';
import {
  ConsoleFailure,
  SessionClosedError,
  type ConsoleSession,
  DuplicateConsoleError,
  SessionRegistry,
  handleShutdownSignals,
} from '../proxy/index.js';
import { addOnce, namingTarget, portLine, type CommandIo } from './command-io.js';
import { type VconsoleConfig, expandWorkspace } from '../config/index.js';
import { sessionLogPrinter } from './log-lines.js';
import { consecutivePorts, type TargetFlags } from './flags.js';
import { certificateNotice, exposureNotice, passwordNotice } from './sharing.js';
import { PROXY_SERVING, servingPlan } from './serving-plan.js';
import { listenAddressFrom, targetOptionsFrom } from './target-options.js';
import { selectTargets } from './target-selection.js';
import { followSelection } from './follow-selection.js';
import { refuseBrowserOnly } from './browser-only.js';
import { closingLinkOnFailure, selectViaTargets, viaLinkFrom } from './via.js';
import type { ViaLink } from '../via/index.js';
import type { CommandFlagsIn } from '../flags/command-flags.js';

/** proxy's flags: the provider options and the shared command flags that act in proxy (it has none of its own). */
export type ProxyFlags = TargetFlags & CommandFlagsIn<'proxy'>;

/**
 * `vconsole proxy`: one listener per console, no viewer. Every client gets a fresh upstream.
 * Prints one JSON line per console on stdout once all listen; logs go to stderr. Resolves
 * once every listener is up (the process then runs until a signal ends it through io.exit).
 * Named targets are all-or-nothing: one that cannot be served rejects with its error, after
 * closing the others. What a selector found is best-effort: one that cannot be served is
 * said in a line and left out; it rejects only when nothing could be served. A console that
 * failed on its own (ConsoleFailure: a shared console's bad handshake, or no whole picture in time) is said in its line and
 * the others serve; only when nothing else can be served is it the command's error. With
 * --follow, VMs that start matching (or running) later are served as they do, a JSON line each.
 */
export async function runProxyCommand(inputs: string[], flags: ProxyFlags, config: VconsoleConfig, io: CommandIo): Promise<void> {
  ({ inputs, flags } = expandWorkspace(inputs, flags, config));
  const via = viaLinkFrom(flags, config, (line) => io.stderr.write(`${line}\n`));
  await closingLinkOnFailure(via, () => serveProxy(inputs, flags, config, io, via));
}

/** What runProxyCommand does once the workspace is expanded and the --via link (if any) made. */
async function serveProxy(
  inputs: string[],
  flags: ProxyFlags,
  config: VconsoleConfig,
  io: CommandIo,
  via: ViaLink | undefined,
): Promise<void> {
  const options = targetOptionsFrom(flags, config);
  const { named, selected } = via
    ? await selectViaTargets(via, inputs, flags, { follow: flags.follow })
    : await selectTargets(inputs, flags, options, config, { follow: flags.follow });
  refuseBrowserOnly([...named, ...selected], 'proxy');
  const listen = listenAddressFrom(flags.listen, config);
  const notice = (text: string) => io.stderr.write(`${text}\n`);
  const plan = await servingPlan(
    flags,
    { profile: PROXY_SERVING, listen, configShare: config.defaults.share, targets: [...named, ...selected] },
    notice,
  );
  const { sharing } = plan;
  const warning = exposureNotice(listen, sharing);

  const registry = new SessionRegistry();
  registry.on('log', sessionLogPrinter(io.stderr, Boolean(flags.verbose)));
  const following: { stop?: () => void } = {};
  const shutdown = handleShutdownSignals({
    close: () => {
      following.stop?.();
      // The link first: its consoles then end as closed here, not as a connection lost.
      via?.close();
      return registry.closeAll();
    },
    exit: io.exit,
  });

  const namedSessions = addOnce(registry, named.map(plan.wrap), notice);
  const selectedSessions = new Set(addOnce(registry, selected.map(plan.wrap), notice));
  const sessions = [...namedSessions, ...selectedSessions];
  sessions.forEach(sharing.follow);
  const ports = consecutivePorts(flags.port, sessions.length);
  const portOf = new Map(sessions.map((session, i) => [session.id, ports[i]]));
  const notices = onceOnly(() => {
    for (const line of [warning, passwordNotice(sharing), certificateNotice(sharing)]) if (line) io.stderr.write(`${line}\n`);
  });
  // A shared console waits for its first picture: each port is printed once its console is
  // ready, so that a slow or silent one holds no other back.
  const early = sessions.some((s) => sharing.hubOf(s) !== undefined);
  const printed = new Set<ConsoleSession>();
  const started = await Promise.allSettled(
    sessions.map((s) =>
      s.start({ host: listen, port: portOf.get(s.id) ?? 0 }).then((bound) => {
        if (early) {
          notices();
          io.stdout.write(`${portLine(s.name, bound.address, bound.port, s.source.facts.consoleType)}\n`);
          printed.add(s);
        }
        return bound;
      }),
    ),
  );
  const outcome = sortStarts(started, sessions, selectedSessions, io);
  const { listening, skipped, consoleFailures } = outcome;
  for (const { session, reason } of skipped)
    io.stderr.write(`${skippedLine(session.name, reason, { following: Boolean(flags.follow), othersServed: listening.length > 0 })}\n`);
  const fatal = commandFailures(outcome, Boolean(flags.follow));
  if (fatal.length > 0) {
    shutdown.dispose();
    await registry.closeAll();
    for (const failure of fatal.slice(0, -1)) io.stderr.write(`${errorLine(failure)}\n`);
    throw fatal[fatal.length - 1];
  }
  // A selected VM that cannot be served holds no session; --follow serves it anew once it runs.
  await Promise.all(skipped.map(({ session }) => registry.remove(session.id)));
  if (listening.length === 0 && !flags.follow) return; // closed by a signal before anything listened
  for (const { session, reason } of consoleFailures) session.log('error', `${describeError(reason)}; not served, the other consoles are`);
  notices();
  for (const { session, address, port } of listening) {
    if (!printed.has(session)) io.stdout.write(`${portLine(session.name, address, port, session.source.facts.consoleType)}\n`);
  }
  if (!flags.follow) return;

  following.stop = followAndServe({ flags, options, config, registry, plan, io, listen, portOf, sessions, notice });
}

/** fn, run on the first call only. */
function onceOnly(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

interface StartOutcome {
  /** Consoles that listen. */
  listening: { session: ConsoleSession; address: string; port: number }[];
  /** Consoles that failed on their own (a shared console's bad handshake): the others still serve. */
  consoleFailures: { session: ConsoleSession; reason: unknown }[];
  /** Selected (not named) consoles that could not be served. */
  skipped: { session: ConsoleSession; reason: unknown }[];
  /** Named consoles that could not be served: each is the command's failure. */
  failures: VconsoleError[];
}

/** Sorts the consoles' starts into served, failed on their own, skipped (selected) and failed (named). */
function sortStarts(
  started: PromiseSettledResult<{ address: string; port: number }>[],
  sessions: ConsoleSession[],
  selectedSessions: Set<ConsoleSession>,
  io: CommandIo,
): StartOutcome {
  const outcome: StartOutcome = { listening: [], consoleFailures: [], skipped: [], failures: [] };
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') outcome.listening.push({ session: sessions[i], ...result.value });
    else if (result.reason instanceof DuplicateConsoleError) io.stderr.write(`${describeError(result.reason)}\n`);
    else if (result.reason instanceof ConsoleFailure) outcome.consoleFailures.push({ session: sessions[i], reason: result.reason });
    // A session closed while it started: a shutdown is under way, not a failure.
    else if (result.reason instanceof SessionClosedError) return;
    else if (selectedSessions.has(sessions[i])) outcome.skipped.push({ session: sessions[i], reason: result.reason });
    else outcome.failures.push(namingTarget(sessions[i].name, result.reason));
  });
  return outcome;
}

/**
 * The errors that end the command, the last one thrown: named consoles that failed, or nothing
 * selected served. With nothing else to serve, a console's own failure (a bad handshake, or
 * silence) is the command's; following, nothing served yet is a wait, not a failure.
 */
function commandFailures({ listening, consoleFailures, skipped, failures }: StartOutcome, following: boolean): Error[] {
  const named =
    listening.length === 0 ? [...consoleFailures.map(({ session, reason }) => namingTarget(session.name, reason)), ...failures] : failures;
  if (named.length > 0) return named;
  if (listening.length === 0 && skipped.length > 0 && !following)
    return [new VconsoleError(`none of the ${skipped.length} VMs selected could be served`, { hint: 'see the lines above' })];
  return [];
}

interface FollowingProxy {
  flags: ProxyFlags;
  options: ReturnType<typeof targetOptionsFrom>;
  config: VconsoleConfig;
  registry: SessionRegistry;
  plan: Awaited<ReturnType<typeof servingPlan>>;
  io: CommandIo;
  listen: string;
  portOf: Map<number, number | undefined>;
  sessions: ConsoleSession[];
  notice: (text: string) => void;
}

/**
 * --follow: serves VMs that start matching (or running) as they do, a JSON line each once it
 * listens, else the skip line. Returns what stops following.
 */
function followAndServe({ flags, options, config, registry, plan, io, listen, portOf, sessions, notice }: FollowingProxy): () => void {
  let nextPort = flags.port === undefined ? undefined : flags.port + sessions.length;
  const serve = async (session: ConsoleSession) => {
    try {
      const at = await session.start({ host: listen, port: portOf.get(session.id) ?? 0 });
      io.stdout.write(`${portLine(session.name, at.address, at.port, session.source.facts.consoleType)}\n`);
    } catch (err) {
      if (!(err instanceof SessionClosedError))
        io.stderr.write(`${skippedLine(session.name, err, { following: true, othersServed: false })}\n`);
    }
  };
  return followSelection({
    flags,
    options,
    config,
    registry,
    sessions: sessions.filter((session) => registry.get(session.id)),
    withConsoleOnly: true,
    open: (target) => {
      const [session] = addOnce(registry, [plan.wrap(target)], notice);
      if (!session) return;
      plan.sharing.follow(session);
      if (nextPort !== undefined) portOf.set(session.id, nextPort++);
      void serve(session);
    },
    // A port stays while its VM stops matching (a client may still want it): the notice says it.
    mark: () => undefined,
    notice,
  });
}

/**
 * The one line for a selected VM left out: why (its error, hint included), that the rest is
 * served, and what picks it up once it runs.
 */
function skippedLine(name: string, err: unknown, { following, othersServed }: { following: boolean; othersServed: boolean }): string {
  const later = following ? 'served once it runs' : 'with --follow it is served once it runs';
  return `vconsole: skipped ${name}: ${describeError(err)} (${othersServed ? 'the other VMs selected are served; ' : ''}${later})`;
}
