// Workspaces (`open @NAME`): their keys are the option declarations' workspace keys plus
// targets, viewer and follow; saved by the TUI's S without losing the rest of the file.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, describeError } from '../errors.js';
import { isRecord } from './records.js';
import { listKey, switchKey, textKey, type FileKey, type OptionDeclaration } from '../targets/option-group.js';
import { CONSOLE_TYPE_OPTION, OPTION_GROUPS, PROVIDER_OPTIONS, flagSelections, type ConsoleTypeFlags, type DeclaredWorkspaceKeys, type ProviderFlags } from '../targets/option-groups.js';
import { echoInput } from '../text/terminal-text.js';
import { FileWriteError, createPrivateFileSync, ensureDirectory, fileErrorCause } from '../files/safe-file.js';

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
export type Workspace = DeclaredWorkspaceKeys & {
  /** Targets as `open` takes them (aliases too). */
  targets?: string[];
  viewer?: string;
  /** `open --follow`. */
  follow?: boolean;
};

/** What `saveWorkspace` writes: what is open now, and how. */
export type SavedWorkspace = Workspace & { targets: string[] };

const NAME = /^[A-Za-z0-9][-A-Za-z0-9_.]*$/;

/** The options a workspace may set: the providers' and --type, each with its declared workspace key. */
const WORKSPACE_OPTIONS: readonly OptionDeclaration[] = [...PROVIDER_OPTIONS, CONSOLE_TYPE_OPTION].filter((option) => option.workspace);

/** The keys of the commands' own settings a workspace may hold (besides the options'). */
const TARGETS_KEY = listKey('targets', textKey('target', '').read, 'a list of targets, e.g. [vm-a, prod/db-1, os:web-01]');
const OWN_KEYS = [textKey('viewer', 'a viewer name or path'), switchKey('follow')];

/**
 * Each key a workspace may have, in the order hints list them: targets, what selects VMs, the
 * console type and the commands' own settings, then the rest. A `single` spelling (`namespace`)
 * is read into its list key (`namespaces`).
 */
function workspaceKeys(): Map<string, { rule: FileKey; into: string }> {
  const selecting = new Set(OPTION_GROUPS.flatMap((group) => group.selectingFlags ?? []));
  const ofOption = (option: OptionDeclaration): FileKey[] => (option.workspace ? [...(option.workspace.single ? [option.workspace.single] : []), option.workspace] : []);
  const chosen = (pick: (option: OptionDeclaration) => boolean) => WORKSPACE_OPTIONS.filter(pick);
  const bySelection = OPTION_GROUPS.flatMap((group) => (group.selectingFlags ?? []).flatMap((key) => (group.options as readonly OptionDeclaration[]).filter((o) => o.key === key && o.workspace)));
  const ordered = [
    TARGETS_KEY,
    ...bySelection.flatMap(ofOption),
    ...ofOption(CONSOLE_TYPE_OPTION),
    ...OWN_KEYS,
    ...chosen((option) => !selecting.has(option.key) && option !== CONSOLE_TYPE_OPTION).flatMap(ofOption),
  ];
  const listOf = new Map(WORKSPACE_OPTIONS.flatMap((option) => (option.workspace?.single ? [[option.workspace.single.key, option.workspace.key] as const] : [])));
  return new Map(ordered.map((rule) => [rule.key, { rule, into: listOf.get(rule.key) ?? rule.key }]));
}
const RULES = workspaceKeys();

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

function parseWorkspace(name: string, body: unknown, file: string): Workspace {
  const where = `workspaces.${echoInput(name)}`;
  if (!NAME.test(name)) throw new UsageError(`config ${file}: bad workspace name "${echoInput(name)}"`, 'use letters, digits, "-", "_" and "."');
  if (!isRecord(body)) throw new UsageError(`config ${file}: "${where}" must be a mapping (targets, selector, type, ...)`);
  const workspace: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const known = RULES.get(key);
    if (!known) throw new UsageError(`config ${file}: unknown key "${where}.${echoInput(key)}"`, `known keys: ${[...RULES.keys()].join(', ')}`);
    const read = known.rule.read(value);
    if (read === undefined) {
      throw new UsageError(`config ${file}: bad value ${echoInput(JSON.stringify(value) ?? String(value))} for "${where}.${key}"`, `use ${known.rule.allowed}`);
    }
    // A list key and its one-value spelling add up (`namespace: a` and `namespaces: [b]`).
    if (known.into !== key || Array.isArray(workspace[known.into])) workspace[known.into] = [...((workspace[known.into] as unknown[] | undefined) ?? []), ...[read].flat()];
    else workspace[key] = read;
  }
  const ws = workspace as Workspace;
  if (ws.allNamespaces && ws.namespaces?.length) throw new UsageError(`config ${file}: "${where}" sets both allNamespaces and namespace(s)`, 'keep one');
  if (!ws.targets?.length && flagSelections(workspaceFlags(ws, {})).length === 0) {
    throw new UsageError(`config ${file}: "${where}" opens nothing`, 'give it targets, a selector, allNamespaces, namespaces, osFilter or osTags');
  }
  return ws;
}

/** The flags a workspace fills in (the options with a workspace key, viewer, follow); the command line's own win. */
export type WorkspaceFlags = ProviderFlags & ConsoleTypeFlags & { viewer?: string; follow?: boolean };

/**
 * The flags with a workspace's settings under them: a flag given wins, and where a group's
 * flags are replaced together (KubeVirt's -n and -A), any of them given replaces all of the
 * workspace's.
 */
function workspaceFlags<F extends WorkspaceFlags>(ws: Workspace, flags: F): F {
  const stored = ws as Readonly<Record<string, unknown>>;
  const given = flags as Readonly<Record<string, unknown>>;
  const replaced = new Set(OPTION_GROUPS.flatMap((group) => {
    const together: readonly string[] = group.replacedTogether ?? [];
    return together.some((key) => given[key] !== undefined) ? together : [];
  }));
  const merged: Record<string, unknown> = { ...flags };
  for (const option of WORKSPACE_OPTIONS) {
    const workspace = option.workspace;
    if (!workspace) continue;
    const value = stored[workspace.key];
    const fromWorkspace = value === undefined ? undefined : workspace.toFlag ? workspace.toFlag(value) : value;
    merged[option.key] = replaced.has(option.key) ? given[option.key] : given[option.key] ?? fromWorkspace;
  }
  merged.viewer = flags.viewer ?? ws.viewer;
  merged.follow = flags.follow ?? ws.follow;
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
  if (named.length > 1) throw new UsageError(`${named.map(echoInput).join(' and ')}: one workspace at a time`, 'open the others with their own vconsole open');
  const name = named[0].slice(1);
  const known = config.workspaces ?? {};
  if (!Object.hasOwn(known, name)) {
    const names = Object.keys(known);
    throw new UsageError(
      `unknown workspace "@${echoInput(name)}"`,
      names.length ? `known workspaces: ${names.map((n) => `@${n}`).join(', ')}` : `add it under "workspaces:" in ${config.file ?? 'the config file'} (or press S in open's TUI)`,
    );
  }
  const ws = known[name];
  const merged = workspaceFlags(ws, flags);
  const expanded = inputs.flatMap((input) => (input === named[0] ? ws.targets ?? [] : [input]));
  return { inputs: expanded, flags: merged };
}

/**
 * Writes `workspaces.NAME` into the config file, replacing a workspace of that name and keeping
 * everything else in the file as it was, comments included. Creates the file (0600) and its
 * directory when absent; an existing file keeps its mode, and a symlinked one stays a link.
 * Returns the file written.
 */
export async function saveWorkspace(configFile: string, name: string, workspace: SavedWorkspace): Promise<string> {
  const { parseDocument, isMap } = await import('yaml');
  type Document = import('yaml').Document;
  // Checked as the file will be read back.
  const entry = parseWorkspace(name, toYamlShape(workspace), configFile);
  const file = realFile(configFile);
  let textBefore = '';
  let mode = 0o600;
  try {
    textBefore = fs.readFileSync(file, 'utf8');
    mode = fs.statSync(file).mode & 0o7777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot read config file ${configFile}: ${describeError(err)}`);
  }
  const doc: Document = parseDocument(textBefore);
  if (doc.errors.length > 0) throw new UsageError(`config ${configFile}: not valid YAML (${doc.errors[0].message.split('\n')[0]}); the workspace was not saved`, 'fix the file first');
  if (doc.contents === null || doc.contents === undefined) doc.contents = doc.createNode({});
  if (!isMap(doc.contents)) throw new UsageError(`config ${configFile}: expected a mapping at the top; the workspace was not saved`);
  const existing = doc.get('workspaces');
  if (existing !== undefined && existing !== null && !isMap(existing)) {
    throw new UsageError(`config ${configFile}: "workspaces" must be a mapping of name: workspace; the workspace was not saved`);
  }
  doc.setIn(['workspaces', name], doc.createNode(toYamlShape(entry)));
  const textAfter = doc.toString();
  // The rest of the file must still load: a save never leaves a config vconsole refuses.
  const { parseConfig } = await import('./config.js');
  await parseConfig(textAfter, configFile);
  const temporary = `${file}.${process.pid}.tmp`;
  let created = false;
  try {
    ensureDirectory(path.dirname(file));
    // New and never through a link: the temporary's name is predictable, another user may have planted one.
    const fd = createPrivateFileSync(temporary);
    created = true;
    try {
      fs.writeFileSync(fd, textAfter);
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (err) {
    if (created) fs.rmSync(temporary, { force: true });
    throw new UsageError(`cannot write config file ${configFile}: ${fileErrorCause(err instanceof FileWriteError ? err.cause : err)}`);
  }
  return file;
}

/**
 * The config file `saveWorkspace` should write for the TUI's `S`: the one loaded, else the one
 * VCONSOLE_CONFIG names, else the default path.
 */
export async function workspaceConfigFile(config: { file?: string }, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (config.file) return config.file;
  const { defaultConfigPath } = await import('./config.js');
  return env.VCONSOLE_CONFIG || defaultConfigPath(env);
}

/** The workspace as the file spells it: only the keys set, one namespace as `namespace`. */
function toYamlShape(ws: Workspace): Record<string, unknown> {
  const { namespaces, ...rest } = ws;
  const shaped: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (namespaces?.length === 1) shaped.namespace = namespaces[0];
  else if (namespaces?.length) shaped.namespaces = namespaces;
  return shaped;
}

/** The file a symlink points to (so the link survives the rename), or the path itself. */
function realFile(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
