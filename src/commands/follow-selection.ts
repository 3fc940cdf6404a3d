import type { VconsoleConfig } from '../config/index.js';
import { describeError } from '../errors.js';
import { SELECTOR_FOLLOW_INTERVAL_MS, msFromEnv } from '../limits.js';
import type { ConsoleSession, SessionRegistry } from '../proxy/index.js';
import type { ConsoleTarget, TargetOptions } from '../targets/index.js';
import type { SelectionFlags } from './selector-flags.js';
import { consoleKey, followSelectedTargets, selectTargets, selectorSearches } from './target-selection.js';

/** What `open --follow` needs from open: its sessions, a way to open one more, and its view. */
export interface FollowContext {
  flags: SelectionFlags;
  options: TargetOptions;
  config: VconsoleConfig;
  registry: SessionRegistry;
  /** The sessions open already has. */
  sessions: readonly ConsoleSession[];
  /** Opens a target that started matching (as typed at the TUI's `a`). */
  open(target: ConsoleTarget): void;
  /** Marks a session's row as matching the selectors (again) or no longer. */
  mark(sessionId: number, matching: boolean): void;
  notice(text: string): void;
  /** Default SELECTOR_FOLLOW_INTERVAL_MS, or VCONSOLE_FOLLOW_INTERVAL_MS. */
  intervalMs?: number;
  /**
   * What matches now, asked every interval; default: the selectors' providers asked through
   * selectTargets, unless they follow their listings themselves (followSelectedTargets).
   */
  select?: () => Promise<ConsoleTarget[]>;
  /** Only VMs whose console can open now (proxy serves a VM once it runs). */
  withConsoleOnly?: boolean;
  /**
   * The most VMs one answer may open at once (open's --max, else OPEN_WITHOUT_ASKING_MAX);
   * undefined: no limit (--yes, proxy). More are said in a notice and left unopened.
   */
  maxAtOnce?: number;
}

function followInterval(): number {
  return msFromEnv('VCONSOLE_FOLLOW_INTERVAL_MS', SELECTOR_FOLLOW_INTERVAL_MS);
}

/**
 * `open --follow`: follows what the selectors select, by the providers' own watches where they
 * have them (KubeVirt: one per namespace), else by asking again every interval (one question
 * at a time). A VM that starts matching gets a session, or its row unmarked when it has one; a
 * VM that stops matching has its row marked, its session kept (its console may still be
 * wanted). The first answer is the baseline: VMs it finds without a session are opened, nothing
 * is marked. A failed question is said once until one succeeds; a watch that fails is said and
 * replaced by asking. Returns the function that stops.
 */
export function followSelection(context: FollowContext): () => void {
  const { flags, options, config, registry } = context;
  const shownAs = selectorSearches(flags)
    .map((search) => search.shownAs)
    .join(' ');
  const intervalMs = context.intervalMs ?? followInterval();
  const withConsoleOnly = context.withConsoleOnly ?? false;
  const select =
    context.select ?? (async () => (await selectTargets([], flags, options, config, { allowEmpty: true, withConsoleOnly })).selected);
  const sessions = new Map(context.sessions.map((session) => [session.id, session]));
  const onAdded = (session: ConsoleSession) => sessions.set(session.id, session);
  const onRemoved = (session: ConsoleSession) => sessions.delete(session.id);
  registry.on('added', onAdded);
  registry.on('removed', onRemoved);
  const sessionOf = (target: ConsoleTarget) =>
    [...sessions.values()].find((s) => s.source.provider === target.provider && s.name === target.name);

  let failing = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watching = new AbortController();
  const compare = answerComparer(context, shownAs, sessionOf);
  /** One answer compared with the one before. */
  const found = (targets: readonly ConsoleTarget[]) => {
    if (stopped) return;
    failing = false;
    compare(targets);
  };

  const poll = async () => {
    try {
      found(await select());
    } catch (err) {
      if (stopped || failing) return;
      failing = true;
      context.notice(
        `--follow: cannot ask which VMs match ${shownAs} (${describeError(err)}); trying again every ${Math.round(intervalMs / 1000) || 1}s`,
      );
    }
  };
  const loop = async () => {
    await poll();
    if (stopped) return;
    // Not unref'd: with nothing matching yet, following is all open does, and it must go on.
    timer = setTimeout(() => void loop(), intervalMs);
  };
  if (context.sessions.length === 0) context.notice(`nothing matches ${shownAs} yet: following it`);
  const watch = context.select
    ? undefined
    : followSelectedTargets(flags, options, config, { signal: watching.signal, withConsoleOnly, onSelected: found });
  if (watch) {
    watch.catch((err: unknown) => {
      if (stopped) return;
      context.notice(
        `--follow: cannot watch which VMs match ${shownAs} (${describeError(err)}); asking every ${Math.round(intervalMs / 1000) || 1}s instead`,
      );
      void loop();
    });
  } else void loop();

  return () => {
    stopped = true;
    watching.abort();
    clearTimeout(timer);
    registry.off('added', onAdded);
    registry.off('removed', onRemoved);
  };
}

/**
 * Compares each answer with the one before: a VM that starts matching is opened, or its row
 * unmarked; one that stops matching has its row marked. The first answer is the baseline.
 */
function answerComparer(
  context: FollowContext,
  shownAs: string,
  sessionOf: (target: ConsoleTarget) => ConsoleSession | undefined,
): (targets: readonly ConsoleTarget[]) => void {
  let matching: Map<string, ConsoleTarget> | undefined;
  const appeared = (target: ConsoleTarget, baseline: boolean) => {
    const session = sessionOf(target);
    if (session) {
      if (!baseline) {
        context.mark(session.id, true);
        context.notice(`${session.name} matches ${shownAs} again`);
      }
      return;
    }
    context.notice(`${target.name} now matches ${shownAs}: opening it`);
    context.open(target);
  };
  const disappeared = (target: ConsoleTarget) => {
    const session = sessionOf(target);
    if (!session) return;
    context.mark(session.id, false);
    context.notice(`${session.name} no longer matches ${shownAs}`);
  };
  return (targets) => {
    const now = new Map(targets.map((target) => [consoleKey(target), target]));
    const before = matching;
    matching = now;
    const fresh = [...now].filter(([key, target]) => !before?.has(key) && !sessionOf(target));
    // One relabel must not open hundreds of viewers: they count as matching, unopened, said once.
    const tooMany = context.maxAtOnce !== undefined && fresh.length > context.maxAtOnce;
    if (tooMany)
      context.notice(
        `${fresh.length} VMs now match ${shownAs} at once, more than ${context.maxAtOnce}: none of them opened (a opens some; --max N or --yes allows more)`,
      );
    for (const [key, target] of now) {
      if (!before?.has(key) && !(tooMany && !sessionOf(target))) appeared(target, before === undefined);
    }
    for (const [key, target] of before ?? []) if (!now.has(key)) disappeared(target);
  };
}
