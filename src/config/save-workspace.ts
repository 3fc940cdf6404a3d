// The TUI's S: one workspace written into the config file without losing the rest of it
// (comments included), checked as the file will be read back. Apart from workspaces.ts so that
// it can use the config parser, which reads workspaces, without an import cycle.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, describeError } from '../errors.js';
import { FileWriteError, createPrivateFileSync, ensureDirectory, fileErrorCause } from '../files/safe-file.js';
import { defaultConfigPath, parseConfig } from './config.js';
import { parseWorkspace, type SavedWorkspace, type Workspace } from './workspaces.js';

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
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`cannot read config file ${configFile}: ${describeError(err)}`);
  }
  const doc: Document = parseDocument(textBefore);
  if (doc.errors.length > 0)
    throw new UsageError(
      `config ${configFile}: not valid YAML (${doc.errors[0].message.split('\n')[0]}); the workspace was not saved`,
      'fix the file first',
    );
  if (doc.contents === null || doc.contents === undefined) doc.contents = doc.createNode({});
  if (!isMap(doc.contents)) throw new UsageError(`config ${configFile}: expected a mapping at the top; the workspace was not saved`);
  const existing = doc.get('workspaces');
  if (existing !== undefined && existing !== null && !isMap(existing)) {
    throw new UsageError(`config ${configFile}: "workspaces" must be a mapping of name: workspace; the workspace was not saved`);
  }
  doc.setIn(['workspaces', name], doc.createNode(toYamlShape(entry)));
  const textAfter = doc.toString();
  // The rest of the file must still load: a save never leaves a config vconsole refuses.
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
