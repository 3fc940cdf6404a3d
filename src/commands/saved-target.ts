// What the TUI's `S` writes for what is open: each console named on the command line (or added
// at `a`) as its target, pinned so it opens again under any defaults, and the consoles the
// selectors found as those selectors, so the workspace finds what matches then. It looks through
// the data path's wrappers, so it lives with the commands, not in src/config (which must not
// import the data path).
import { type UpstreamSource, sourceChain } from '../proxy/index.js';
import { valuesOf } from '../targets/option-group.js';
import { CONSOLE_TYPE_OPTION, flagSelections } from '../targets/option-groups.js';

/**
 * What to save for an open session so `open @NAME` opens the same console under any defaults:
 * the target as typed when it named its scheme, else pinned to its provider (a KubeVirt VM
 * with the namespace its pre-flight found). Shared consoles are looked through to their target.
 */
export function targetToSave(source: UpstreamSource): string {
  const chain = [...sourceChain(source)] as (UpstreamSource & { input?: unknown })[];
  const target = chain.find((s) => typeof s.input === 'string') ?? chain[chain.length - 1];
  const input = typeof target.input === 'string' ? target.input : target.name;
  if (/^[a-z][a-z0-9+.-]*:/i.test(input)) return input;
  if (target.provider === 'kubevirt' && target.name.includes('/')) return `kubevirt:${target.name}`;
  return `${target.provider}:${input}`;
}

/** The selection a workspace saves: its keys as the file spells them, and the flags as the user wrote them. */
interface SelectionToSave {
  /** Workspace keys (`selector`, `namespaces`, `allNamespaces`, `osFilter`, `osTags`, `type`, `follow`). */
  keys: Record<string, unknown>;
  /** `-l app=web -n prod`, for the reply. */
  shownAs: string;
}

/**
 * The flags that selected VMs, as workspace keys: for each provider whose flags select, every
 * selecting flag given (a selector with the namespaces it searched), each under its declared
 * workspace key; the console type and --follow with them. Undefined when the flags select nothing.
 */
export function selectionToSave(flags: Readonly<Record<string, unknown>>): SelectionToSave | undefined {
  const selections = flagSelections(flags);
  if (selections.length === 0) return undefined;
  const keys: Record<string, unknown> = {};
  for (const { group } of selections) {
    for (const key of group.selectingFlags ?? []) {
      const option = group.options.find((o) => o.key === key);
      const value = flags[key];
      if (!option?.workspace || value === undefined || value === false) continue;
      keys[option.workspace.key] = option.arity === 'list' || option.arity === 'one-or-list' ? valuesOf(value) : value;
    }
  }
  const type = flags[CONSOLE_TYPE_OPTION.key];
  if (type !== undefined && type !== 'auto') keys[CONSOLE_TYPE_OPTION.workspace.key] = type;
  if (flags.follow === true) keys.follow = true;
  return { keys, shownAs: selections.map((selection) => selection.shownAs).join(' ') };
}
