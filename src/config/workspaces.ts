// Workspaces (`open @NAME`): their keys are the option declarations' workspace keys (the
// providers', --type's, and the command flags': viewer, follow) plus targets (save-workspace.ts
// writes one, for the TUI's S).
import { UsageError } from '../errors.js';
import { isRecord } from './records.js';
import { COMMAND_FLAGS } from '../flags/command-flags.js';
import { listKey, textKey, type FileKey, type FlagsOf, type OptionDeclaration, type WorkspaceKeysOf } from '../targets/option-group.js';
import {
  CONSOLE_TYPE_OPTION,
  OPTION_GROUPS,
  PROVIDER_OPTIONS,
  flagSelections,
  type ConsoleTypeFlags,
  type DeclaredWorkspaceKeys,
  type ProviderFlags,
} from '../targets/option-groups.js';
import { echoInput } from '../text/terminal-text.js';

/**
 * Named sets of consoles in the config file, opened with `vconsole open @NAME`:
 *
 *   workspaces:
 *     prod-web:
 *       selector: app=web
 *       namespaces: [prod, staging]
 *       targets: [os:web-01]
 *       type: vnc
 *       viewer: tigervnc
 */
export type Workspace = DeclaredWorkspaceKeys &
  WorkspaceKeysOf<typeof COMMAND_FLAGS> & {
    /** Targets as `open` takes them (aliases too). */
    targets?: string[];
  };

/** What `saveWorkspace` writes: what is open now (its targets, the selectors that found it, or both), and how. */
export type SavedWorkspace = Workspace;

const NAME = /^[A-Za-z0-9][-A-Za-z0-9_.]*$/;

/** The command flags a workspace may set (viewer, follow), each with its declared workspace key. */
const COMMAND_WORKSPACE_OPTIONS: readonly OptionDeclaration[] = COMMAND_FLAGS.filter((option) => 'workspace' in option);

/** The options a workspace may set: the providers', --type and the command flags', each with its declared workspace key. */
const WORKSPACE_OPTIONS: readonly OptionDeclaration[] = [...PROVIDER_OPTIONS, CONSOLE_TYPE_OPTION, ...COMMAND_WORKSPACE_OPTIONS].filter(
  (option) => option.workspace,
);

/** The targets a workspace opens: no option's, the workspace's own key. */
const TARGETS_KEY = listKey('targets', textKey('target', '').read, 'a list of targets, e.g. [vm-a, prod/db-1, os:web-01]');

/**
 * Each key a workspace may have, in the order hints list them: targets, what selects VMs, the
 * console type and the command flags' settings, then the rest. A `single` spelling (`namespace`)
 * is read into its list key (`namespaces`).
 */
function workspaceKeys(): Map<string, { rule: FileKey; into: string }> {
  const selecting = new Set(OPTION_GROUPS.flatMap((group) => group.selectingFlags ?? []));
  const ofOption = (option: OptionDeclaration): FileKey[] =>
    option.workspace ? [...(option.workspace.single ? [option.workspace.single] : []), option.workspace] : [];
  const chosen = (pick: (option: OptionDeclaration) => boolean) => WORKSPACE_OPTIONS.filter(pick);
  const bySelection = OPTION_GROUPS.flatMap((group) =>
    (group.selectingFlags ?? []).flatMap((key) =>
      (group.options as readonly OptionDeclaration[]).filter((o) => o.key === key && o.workspace),
    ),
  );
  const ordered = [
    TARGETS_KEY,
    ...bySelection.flatMap(ofOption),
    ...ofOption(CONSOLE_TYPE_OPTION),
    ...COMMAND_WORKSPACE_OPTIONS.flatMap(ofOption),
    ...chosen(
      (option) => !selecting.has(option.key) && option !== CONSOLE_TYPE_OPTION && !COMMAND_WORKSPACE_OPTIONS.includes(option),
    ).flatMap(ofOption),
  ];
  const listOf = new Map(
    WORKSPACE_OPTIONS.flatMap((option) => (option.workspace?.single ? [[option.workspace.single.key, option.workspace.key] as const] : [])),
  );
  return new Map(ordered.map((rule) => [rule.key, { rule, into: listOf.get(rule.key) ?? rule.key }]));
}
const RULES = workspaceKeys();

/** The keys that select consoles, every provider's (`selector`, ..., `pveTags`, `libvirtFilter`), as a hint names them. */
function selectingKeys(): string {
  const keys = OPTION_GROUPS.flatMap((group) =>
    (group.selectingFlags ?? []).flatMap((key) =>
      (group.options as readonly OptionDeclaration[]).flatMap((o) => (o.key === key && o.workspace ? [o.workspace.key] : [])),
    ),
  );
  return `${keys.slice(0, -1).join(', ')} or ${keys.at(-1)}`;
}

/** Checks the config file's `workspaces` mapping; anything wrong is one UsageError naming file and key. */
export function parseWorkspaces(raw: unknown, file: string): Record<string, Workspace> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw new UsageError(`config ${file}: "workspaces" must be a mapping of name: workspace`);
  const workspaces: Record<string, Workspace> = {};
  for (const [name, body] of Object.entries(raw)) {
    workspaces[name] = parseWorkspace(name, body, file);
  }
  return workspaces;
}

export function parseWorkspace(name: string, body: unknown, file: string): Workspace {
  const where = `workspaces.${echoInput(name)}`;
  if (!NAME.test(name))
    throw new UsageError(`config ${file}: bad workspace name "${echoInput(name)}"`, 'use letters, digits, "-", "_" and "."');
  if (!isRecord(body)) throw new UsageError(`config ${file}: "${where}" must be a mapping (targets, selector, type, ...)`);
  const workspace: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const known = RULES.get(key);
    if (!known)
      throw new UsageError(`config ${file}: unknown key "${where}.${echoInput(key)}"`, `known keys: ${[...RULES.keys()].join(', ')}`);
    const read = known.rule.read(value);
    if (read === undefined) {
      throw new UsageError(
        `config ${file}: bad value ${echoInput(JSON.stringify(value) ?? String(value))} for "${where}.${key}"`,
        `use ${known.rule.allowed}`,
      );
    }
    // A list key and its one-value spelling add up (`namespace: a` and `namespaces: [b]`).
    if (known.into !== key || Array.isArray(workspace[known.into]))
      workspace[known.into] = [...((workspace[known.into] as unknown[] | undefined) ?? []), ...[read].flat()];
    else workspace[key] = read;
  }
  const ws = workspace as Workspace;
  if (ws.allNamespaces && ws.namespaces?.length)
    throw new UsageError(`config ${file}: "${where}" sets both allNamespaces and namespace(s)`, 'keep one');
  if (!ws.targets?.length && flagSelections(workspaceFlags(ws, {})).length === 0) {
    throw new UsageError(`config ${file}: "${where}" opens nothing`, `give it targets, ${selectingKeys()}`);
  }
  return ws;
}

/** The flags a workspace fills in (the options with a workspace key); the command line's own win. */
export type WorkspaceFlags = ProviderFlags & ConsoleTypeFlags & FlagsOf<Extract<(typeof COMMAND_FLAGS)[number], { workspace: FileKey }>[]>;

/**
 * The flags with a workspace's settings under them: a flag given wins, and where a group's
 * flags are replaced together (KubeVirt's -n and -A), any of them given replaces all of the
 * workspace's.
 */
function workspaceFlags<F extends WorkspaceFlags>(ws: Workspace, flags: F): F {
  const stored = ws as Readonly<Record<string, unknown>>;
  const given = flags as Readonly<Record<string, unknown>>;
  const replaced = new Set(
    OPTION_GROUPS.flatMap((group) => {
      const together: readonly string[] = group.replacedTogether ?? [];
      return together.some((key) => given[key] !== undefined) ? together : [];
    }),
  );
  const merged: Record<string, unknown> = { ...flags };
  for (const option of WORKSPACE_OPTIONS) {
    const workspace = option.workspace;
    if (!workspace) continue;
    const value = stored[workspace.key];
    const fromWorkspace = value === undefined ? undefined : workspace.toFlag ? workspace.toFlag(value) : value;
    merged[option.key] = replaced.has(option.key) ? given[option.key] : (given[option.key] ?? fromWorkspace);
  }
  return merged as F;
}

/**
 * `@NAME` among the targets: the workspace's targets in its place, its selector and settings
 * under the flags (a flag given wins; -n or -A given replaces where the workspace looks). One
 * workspace a command; an unknown one is a UsageError listing those the config file has.
 */
export function expandWorkspace<F extends WorkspaceFlags>(
  inputs: readonly string[],
  flags: F,
  config: { file?: string; workspaces?: Record<string, Workspace> },
): { inputs: string[]; flags: F } {
  const named = inputs.filter((input) => input.startsWith('@'));
  if (named.length === 0) return { inputs: [...inputs], flags };
  if (named.length > 1)
    throw new UsageError(`${named.map(echoInput).join(' and ')}: one workspace at a time`, 'open the others with their own vconsole open');
  const name = named[0].slice(1);
  const known = config.workspaces ?? {};
  if (!Object.hasOwn(known, name)) {
    const names = Object.keys(known);
    throw new UsageError(
      `unknown workspace "@${echoInput(name)}"`,
      names.length
        ? `known workspaces: ${names.map((n) => `@${n}`).join(', ')}`
        : `add it under "workspaces:" in ${config.file ?? 'the config file'} (or press S in open's TUI)`,
    );
  }
  const ws = known[name];
  const merged = workspaceFlags(ws, flags);
  const expanded = inputs.flatMap((input) => (input === named[0] ? (ws.targets ?? []) : [input]));
  return { inputs: expanded, flags: merged };
}
