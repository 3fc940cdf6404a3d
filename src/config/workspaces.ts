import fs from 'node:fs';
import path from 'node:path';
import { UsageError, describeError } from '../errors.js';
import { isRecord } from './records.js';
import { normalizeLabelSelector } from '../targets/kubevirt/label-selector.js';
import { CONSOLE_TYPES, type ConsoleTypeChoice } from '../targets/types.js';
import { oneOf } from '../targets/console-type.js';
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
export interface Workspace {
  /** Targets as `open` takes them (aliases too). */
  targets?: string[];
  /** A KubeVirt label selector, spelled canonically. */
  selector?: string;
  /** Namespaces to search (`namespace: x` in the file is one). */
  namespaces?: string[];
  allNamespaces?: boolean;
  /** OpenStack server name regular expression. */
  osFilter?: string;
  osTags?: string[];
  type?: ConsoleTypeChoice;
  viewer?: string;
  /** `open --follow`. */
  follow?: boolean;
  context?: string;
  kubeconfig?: string;
  cloud?: string;
}

/** What `saveWorkspace` writes: what is open now, and how. */
export type SavedWorkspace = Workspace & { targets: string[] };

interface KeyRule {
  /** The value as stored, or undefined when it is bad. */
  read(value: unknown): unknown;
  allowed: string;
}

const NAME = /^[A-Za-z0-9][-A-Za-z0-9_.]*$/;
const K8S_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
const list = (each: (v: unknown) => string | undefined) => (v: unknown) => {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const items = v.map(each);
  return items.every((item) => item !== undefined) ? items : undefined;
};
const flag = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
const namespace = (v: unknown) => (typeof v === 'string' && K8S_NAME.test(v) ? v : undefined);
const attempt = <T>(read: () => T) => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

const TYPE_CHOICES: readonly string[] = [...CONSOLE_TYPES, 'auto'];

/** Each key a workspace may have; `namespace` is read into `namespaces`. */
const RULES: Record<string, KeyRule> = {
  targets: { read: list(text), allowed: 'a list of targets, e.g. [vm-a, prod/db-1, os:web-01]' },
  selector: { read: (v) => (typeof v === 'string' ? attempt(() => normalizeLabelSelector(v)) : undefined), allowed: "a label selector in kubectl's syntax, e.g. app=web,tier!=db" },
  namespace: { read: namespace, allowed: 'a Kubernetes namespace name' },
  namespaces: { read: list(namespace), allowed: 'a list of Kubernetes namespace names' },
  allNamespaces: { read: flag, allowed: 'true or false' },
  osFilter: { read: (v) => (typeof v === 'string' && attempt(() => new RegExp(v)) ? v : undefined), allowed: 'a regular expression over server names' },
  osTags: { read: list((v) => (typeof v === 'string' && v && !/[,/]/.test(v) ? v : undefined)), allowed: 'a list of Nova tags (no "," or "/")' },
  // The kinds the console-kinds registry knows, as --type takes them: a new kind is allowed here too.
  type: { read: (v) => (typeof v === 'string' && TYPE_CHOICES.includes(v) ? v : undefined), allowed: oneOf(TYPE_CHOICES) },
  viewer: { read: text, allowed: 'a viewer name or path' },
  follow: { read: flag, allowed: 'true or false' },
  context: { read: text, allowed: 'a kubeconfig context name' },
  kubeconfig: { read: text, allowed: 'a kubeconfig file' },
  cloud: { read: text, allowed: 'a cloud name from clouds.yaml' },
};

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
    const rule = Object.hasOwn(RULES, key) ? RULES[key] : undefined;
    if (!rule) throw new UsageError(`config ${file}: unknown key "${where}.${echoInput(key)}"`, `known keys: ${Object.keys(RULES).join(', ')}`);
    const read = rule.read(value);
    if (read === undefined) {
      throw new UsageError(`config ${file}: bad value ${echoInput(JSON.stringify(value) ?? String(value))} for "${where}.${key}"`, `use ${rule.allowed}`);
    }
    if (key === 'namespace') workspace.namespaces = [...((workspace.namespaces as string[] | undefined) ?? []), read];
    else if (key === 'namespaces') workspace.namespaces = [...((workspace.namespaces as string[] | undefined) ?? []), ...(read as string[])];
    else workspace[key] = read;
  }
  const ws = workspace as Workspace;
  if (ws.allNamespaces && ws.namespaces?.length) throw new UsageError(`config ${file}: "${where}" sets both allNamespaces and namespace(s)`, 'keep one');
  if (!ws.targets?.length && !selects(ws)) {
    throw new UsageError(`config ${file}: "${where}" opens nothing`, 'give it targets, a selector, allNamespaces, namespaces, osFilter or osTags');
  }
  return ws;
}

function selects(ws: Workspace): boolean {
  return ws.selector !== undefined || Boolean(ws.allNamespaces) || (ws.namespaces?.length ?? 0) > 1 || ws.osFilter !== undefined || Boolean(ws.osTags?.length);
}

/** The flags a workspace fills in; the command line's own win. */
export interface WorkspaceFlags {
  selector?: string;
  allNamespaces?: boolean;
  namespace?: string | string[];
  osFilter?: string;
  osTag?: string[];
  type?: ConsoleTypeChoice;
  viewer?: string;
  follow?: boolean;
  context?: string;
  kubeconfig?: string;
  cloud?: string;
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
  const whereGiven = flags.namespace !== undefined || flags.allNamespaces !== undefined;
  const namespaces = ws.namespaces?.length === 1 ? ws.namespaces[0] : ws.namespaces;
  const merged: F = {
    ...flags,
    selector: flags.selector ?? ws.selector,
    namespace: whereGiven ? flags.namespace : namespaces,
    allNamespaces: whereGiven ? flags.allNamespaces : ws.allNamespaces,
    osFilter: flags.osFilter ?? ws.osFilter,
    osTag: flags.osTag ?? ws.osTags,
    type: flags.type ?? ws.type,
    viewer: flags.viewer ?? ws.viewer,
    follow: flags.follow ?? ws.follow,
    context: flags.context ?? ws.context,
    kubeconfig: flags.kubeconfig ?? ws.kubeconfig,
    cloud: flags.cloud ?? ws.cloud,
  };
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
