/**
 * What `type` and `send` share: each console named is reached through the one session it already
 * has (a vconsole of this user holding it is joined, so an open viewer is never kicked; else it
 * is dialled shared, preserving a KubeVirt session), as an RFB client for a screen or as bytes for
 * a serial line; the action runs on it; one line per console says what was done, never what was
 * typed (it may be a password).
 */
import os from 'node:os';
import type { Duplex } from 'node:stream';
import type { VconsoleConfig } from '../config/index.js';
import { consoleKind } from '../console-kinds/index.js';
import { UsageError, VconsoleError, errorLine } from '../errors.js';
import { readSecretLine } from '../files/secret-line.js';
import type { UpstreamSource } from '../proxy/index.js';
import { loadRfbClient, type Framebuffer, type RfbConsoleClient } from '../rfb/index.js';
import { consolePasswordOf } from '../streams/console-password.js';
import type { ConsoleTarget } from '../targets/index.js';
import { terminalSafe } from '../text/terminal-text.js';
import { refuseBrowserOnly } from './browser-only.js';
import { namingTarget, type CommandIo } from './command-io.js';
import type { TargetFlags } from './flags.js';
import { joiningFrom, type JoinFlags } from './joining.js';
import { resolveTargets, targetOptionsFrom } from './target-options.js';
import { resolveViaTargets, viaLinkFrom } from './via.js';
import { finished } from './console-writes.js';
import type { ViaFlags } from '../flags/command-flags.js';

/** How long one console may take from pre-flight to being ready for keys. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * An action made ready for one console: it sends when called, and resolves with the log line's
 * words ("typed 12 characters"). Once `signal` aborts it sends nothing more (a key held down is
 * let go first) and rejects.
 */
type ReadyAction = (signal: AbortSignal) => Promise<string>;

/**
 * What an action does on one console, by kind. `screen` and `serial` plan the action for the
 * console once it is connected (what a screen takes is known only then: QEMU's key events or
 * keysyms) and throw a usage error for one it cannot take; nothing is sent to any console until
 * every console's plan is made.
 */
export interface ConsoleAction {
  /** Checks the targets before any is dialled (a usage error stops them all). */
  check?(targets: readonly ConsoleTarget[]): void;
  screen(client: RfbConsoleClient, target: ConsoleTarget): ReadyAction;
  serial(line: Duplex, target: ConsoleTarget): ReadyAction;
}

export { writeAll } from './console-writes.js';

type ActingFlags = TargetFlags & JoinFlags & ViaFlags & { vncPasswordFile?: string };

/** Runs `action` on every target in parallel; one line each on stderr; resolves with the exit code (1 if any failed). */
export async function actOnConsoles(
  command: 'type' | 'send',
  inputs: string[],
  flags: ActingFlags,
  config: VconsoleConfig,
  io: CommandIo,
  action: ConsoleAction,
): Promise<number> {
  const { password, say, via, resolving } = actingOn(command, inputs, flags, config, io);
  try {
    const targets = await resolving;
    for (const target of targets) kindOf(target);
    action.check?.(targets);
    const joining = joiningFrom(flags, command, say, { acts: true });
    const allPlanned = new AllPlanned(targets.length);
    const results = await Promise.allSettled(targets.map((target) => actOn(target, joining.wrap(target), password, action, allPlanned)));
    const refused = allPlanned.refusal();
    if (refused) throw refused;
    return reportActions(results, targets, (done) => done, io);
  } finally {
    via?.close();
  }
}

/**
 * What every acting command (type, send, wait, run) starts with: the upstream password from
 * --vnc-password-file, the writer of its lines, the --via link (the caller closes it) and its
 * consoles resolved, here or on the far side, each to be joined with a KubeVirt session kept.
 */
export function actingOn(
  command: 'type' | 'send' | 'wait' | 'run',
  inputs: string[],
  flags: ActingFlags,
  config: VconsoleConfig,
  io: CommandIo,
) {
  const password =
    flags.vncPasswordFile === undefined ? undefined : readSecretLine(flags.vncPasswordFile, '--vnc-password-file', { what: 'password' });
  const say = (text: string) => io.stderr.write(`${terminalSafe(text)}\n`);
  const via = viaLinkFrom(flags, config, say);
  const resolving = (async () => {
    const targets = via
      ? await resolveViaTargets(via, inputs, flags, { preserveSession: true })
      : resolveTargets(inputs, { ...targetOptionsFrom(flags, config), preserveSession: true }, config);
    refuseBrowserOnly(targets, command);
    return targets;
  })();
  return { password, say, via, resolving };
}

/**
 * One line per target once its action settled: the action's log line for each done, the error
 * line for each failed; the exit code (1 if any failed).
 */
export function reportActions<T>(
  results: readonly PromiseSettledResult<T>[],
  targets: readonly ConsoleTarget[],
  what: (done: T) => string,
  io: CommandIo,
): number {
  let failed = 0;
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') io.stderr.write(`${terminalSafe(actionRecord(targets[i].name, what(result.value)))}\n`);
    else {
      failed++;
      io.stderr.write(`${errorLine(namingTarget(targets[i].name, result.reason))}\n`);
    }
  });
  return failed > 0 ? 1 : 0;
}

/**
 * The action's log line: when it was done (UTC, to the second), who did it (this machine's user),
 * which console, and what (`typed 26 characters`: a length, never the text, which may be a password).
 */
function actionLine(when: Date, who: string, target: string, what: string): string {
  return `${when.toISOString().replace(/\.\d+Z$/, 'Z')} ${who} ${target}: ${what}`;
}

/** The action's log line, now, by this machine's user (`open`'s TUI logs its actions so too). */
export function actionRecord(target: string, what: string): string {
  return actionLine(new Date(), actingUser(), target, what);
}

/** The user acting: the account vconsole runs as. */
function actingUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
}

/** Whether a target is a screen vconsole speaks RFB to or a serial line; a usage error for anything else. */
export function kindOf(target: { name: string; facts: { consoleType?: string } }): 'screen' | 'serial' {
  const reads = consoleKind(target.facts.consoleType)?.reads;
  if (reads === 'rfb') return 'screen';
  if (reads === 'terminal') return 'serial';
  throw new UsageError(
    `${target.name}: its ${target.facts.consoleType} console takes no keys from vconsole`,
    'name its VNC or serial console (#vnc, #serial)',
  );
}

/**
 * Where the consoles' plans meet before any is carried out: each console arrives once (planned,
 * refused with a usage error, or failed before it could plan); all go ahead only when none was
 * refused, so a text one console cannot take is sent to none.
 */
class AllPlanned {
  private waiting: number;
  private refused?: VconsoleError;
  private readonly arrived: Promise<void>;
  private resolve!: () => void;

  constructor(count: number) {
    this.waiting = count;
    this.arrived = new Promise((resolve) => (this.resolve = resolve));
    if (count === 0) this.resolve();
  }

  /** Marks one console arrived (`refusal` when its plan was refused); resolves with whether every console may go ahead. */
  async arrive(target?: ConsoleTarget, refusal?: unknown): Promise<boolean> {
    if (target && refusal instanceof UsageError) this.refused ??= namingTarget(target.name, refusal);
    if (--this.waiting === 0) this.resolve();
    await this.arrived;
    return this.refused === undefined;
  }

  refusal(): VconsoleError | undefined {
    return this.refused;
  }
}

/** Plans the action on a connected console, waits for every console's plan, then carries it out until `signal` aborts. */
async function planned(target: ConsoleTarget, plan: () => ReadyAction, all: AllPlanned, signal: AbortSignal): Promise<string> {
  let ready: ReadyAction;
  try {
    ready = plan();
  } catch (err) {
    await all.arrive(target, err);
    throw err;
  }
  if (!(await all.arrive())) throw new VconsoleError('nothing sent: another console cannot take it');
  return ready(signal);
}

/**
 * Runs `action` on one console reached through `source` (a step of `vconsole run`); resolves with
 * its log line's words. `signal` aborting (the step's timeout, Ctrl+C) stops it where it is: no
 * further key or byte is sent, and it rejects once what was sent has left.
 */
export function actOnOne(
  target: ConsoleTarget,
  source: UpstreamSource,
  password: string | undefined,
  action: ConsoleAction,
  signal: AbortSignal,
): Promise<string> {
  return actOn(target, source, password, action, new AllPlanned(1), signal);
}

async function actOn(
  target: ConsoleTarget,
  source: UpstreamSource,
  password: string | undefined,
  action: ConsoleAction,
  all: AllPlanned,
  stop: AbortSignal = new AbortController().signal,
): Promise<string> {
  let arrived = false;
  const plan = (make: () => ReadyAction) => {
    arrived = true;
    return planned(target, make, all, stop);
  };
  const signal = AbortSignal.any([AbortSignal.timeout(CONNECT_TIMEOUT_MS), stop]);
  try {
    await source.check?.(signal);
    const kind = kindOf(target);
    const stream = await source.dial({ signal, log: () => undefined, preserveSession: true });
    // A failure reaches the action through its writes (and the RFB client's own listener); the
    // holder ending the connection once this vconsole has closed its side is no failure.
    stream.on('error', () => undefined);
    try {
      if (kind === 'serial')
        return await finished(
          stream,
          plan(() => action.serial(stream, target)),
        );
      const { client } = await readyClient(stream, password, signal);
      try {
        return await finished(
          stream,
          plan(() => action.screen(client, target)),
        );
      } finally {
        client.close();
      }
    } finally {
      stream.destroy();
    }
  } catch (err) {
    if (!arrived) await all.arrive();
    throw err;
  } finally {
    await source.release?.().catch(() => undefined);
  }
}

/**
 * An RFB client of the console that has drawn a whole picture into its framebuffer, so it knows
 * whether the console takes QEMU's key events (and `wait` has a screen to read).
 */
export async function readyClient(
  stream: Duplex,
  password: string | undefined,
  signal: AbortSignal,
): Promise<{ client: RfbConsoleClient; framebuffer: Framebuffer }> {
  const { Framebuffer, RfbConsoleClient: Client, wholePicture } = await loadRfbClient();
  const framebuffer = new Framebuffer(0, 0);
  const onAbort = () => stream.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const client = await Client.connect(stream, framebuffer, { password: consolePasswordOf(stream) ?? password, shared: true });
    await wholePicture(client, framebuffer);
    return { client, framebuffer };
  } catch (err) {
    if (signal.aborted) throw new VconsoleError(`the console was not ready within ${CONNECT_TIMEOUT_MS / 1000} s`, { cause: err });
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
