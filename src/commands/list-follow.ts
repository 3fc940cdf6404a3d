// `vconsole list --follow` (kubectl's `-w/--watch`): the listing, then a line per change until
// Ctrl+C or SIGTERM (exit 0). A provider that follows its listing (KubeVirt: a watch per
// namespace) is followed; any other that lists is asked again every interval, as `open --follow`
// asks it, and the answers are compared.
import { describeError } from '../errors.js';
import { SELECTOR_FOLLOW_INTERVAL_MS, msFromEnv } from '../limits.js';
import { terminalSafe } from '../text/terminal-text.js';
import type { ListFollowContext, ListedChange, ListedVm, TargetOptions } from '../targets/index.js';
import type { SearchResult, SelectorSearch } from './target-selection.js';
import { alignColumns } from './text-table.js';
import { documentText, type OutputFormat } from './output-format.js';
import { printListing } from './list-output.js';

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/**
 * Follows `searches` until SIGINT or SIGTERM: the listing once every search has answered, then
 * each change in the format asked. Returns the exit code; a follow that fails (the first
 * listing, a refused watch) rejects, as list does.
 */
export async function followListing(
  searches: readonly SelectorSearch[],
  options: TargetOptions,
  format: OutputFormat,
  io: Io,
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const held: ListedChange[] | undefined = [];
  let printed = false;
  // In order, though YAML's writer loads on first use.
  let writing = Promise.resolve();
  const say = (change: ListedChange) => {
    writing = writing.then(async () => void io.stdout.write(await changeText(change, format)));
  };
  const listed = searches.map(() => {
    let resolve: (vms: ListedVm[]) => void = () => undefined;
    const promise = new Promise<ListedVm[]>((done) => (resolve = done));
    return { promise, resolve };
  });
  const follows = searches.map((search, i) =>
    followSearch(search, options, {
      signal: stop.signal,
      onListed: (vms) => listed[i].resolve(vms),
      onChange: (change) => (printed ? say(change) : held.push(change)),
      log: (level, message) => {
        if (level === 'warn' || level === 'error') io.stderr.write(`${terminalSafe(message)}\n`);
      },
    }),
  );
  const failed = Promise.race(follows.map((follow) => follow.then(() => new Promise<never>(() => undefined))));
  try {
    const results: SearchResult[] = await Promise.race([
      Promise.all(listed.map(async ({ promise }, i) => ({ search: searches[i], vms: await promise }))),
      failed,
    ]);
    await printListing(results, format, options, io);
    printed = true;
    for (const change of held) say(change);
    await Promise.race([new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true })), failed]);
    await writing;
    return 0;
  } finally {
    stop.abort();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** One search followed: by its provider, or by asking its listing again every interval. */
function followSearch(search: SelectorSearch, options: TargetOptions, context: ListFollowContext): Promise<void> {
  const { provider, scope } = search;
  if (provider.followList) return provider.followList(options, scope, context);
  return pollListing(() => provider.list?.(options, scope) ?? Promise.resolve([]), context);
}

/**
 * A listing asked again every interval (VCONSOLE_FOLLOW_INTERVAL_MS, as open --follow), each
 * answer compared with the one before. The first answer's failure rejects; a later one is said
 * once until an answer comes again.
 */
async function pollListing(list: () => Promise<ListedVm[]>, context: ListFollowContext): Promise<void> {
  const intervalMs = msFromEnv('VCONSOLE_FOLLOW_INTERVAL_MS', SELECTOR_FOLLOW_INTERVAL_MS);
  let known = new Map((await list()).map((vm) => [vm.target, vm]));
  context.onListed([...known.values()]);
  let failing = false;
  while (!context.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      context.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    if (context.signal.aborted) return;
    try {
      const now = new Map((await list()).map((vm) => [vm.target, vm]));
      failing = false;
      for (const change of listingChanges(known, now)) context.onChange(change);
      known = now;
    } catch (err) {
      if (!failing)
        context.log('warn', `list --follow: cannot list again (${describeError(err)}); trying again every ${intervalMs / 1000} s`);
      failing = true;
    }
  }
}

/** What changed between two listings by target: added, state or console changed, deleted. */
function listingChanges(before: ReadonlyMap<string, ListedVm>, after: ReadonlyMap<string, ListedVm>): ListedChange[] {
  const changes: ListedChange[] = [];
  for (const [target, vm] of after) {
    const was = before.get(target);
    if (!was) changes.push({ type: 'ADDED', vm });
    else if (was.state !== vm.state || was.console !== vm.console) changes.push({ type: 'MODIFIED', vm });
  }
  for (const [target, vm] of before) if (!after.has(target)) changes.push({ type: 'DELETED', vm });
  return changes;
}

/**
 * One change as a line: a JSON object (`{"type":"ADDED","vm":{...}}`), a YAML document, the
 * target alone (-o name), or the table's columns after the change's word.
 */
async function changeText(change: ListedChange, format: OutputFormat): Promise<string> {
  const { type, vm } = change;
  // kubectl -w -o jsonpath: the template on each object as it changes.
  if (typeof format === 'object') return format.one(vm);
  switch (format) {
    case 'json':
      return (await documentText(change, 'json')).replace(/\n\s*/g, '').concat('\n');
    case 'yaml':
      return `---\n${await documentText(change, 'yaml')}`;
    case 'name':
      return `${terminalSafe(vm.target)}\n`;
    case 'wide':
      return `${alignColumns([[type.padEnd(8), vm.target, vm.state, vm.console ? 'yes' : 'no', vm.provider, vm.namespace ?? '-', vm.name]])[0]}\n`;
    case 'table':
      return `${alignColumns([[type.padEnd(8), vm.target, vm.state, vm.console ? 'yes' : 'no']])[0]}\n`;
  }
}
