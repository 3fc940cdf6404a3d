import fs from 'node:fs';

/** A YAML mapping, as a kubeconfig's entries are. */
type Entry = Record<string, unknown>;

export const isEntry = (value: unknown): value is Entry => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The body of the user called `userName` in the first of `files` that defines that user (how
 * kubectl merges several kubeconfigs), and that file; undefined when none does. A file that does
 * not parse is passed over: client-node has read these files already and worded their errors.
 * For what client-node drops of a user (its tokenFile, its as-groups).
 */
export async function kubeconfigUser(files: readonly string[], userName: string): Promise<{ file: string; user: unknown } | undefined> {
  const { parse } = await import('yaml');
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    const users = isEntry(doc) && Array.isArray(doc.users) ? (doc.users as unknown[]) : [];
    const found = users.find((u): u is Entry => isEntry(u) && u.name === userName);
    if (found) return { file, user: found.user };
  }
  return undefined;
}
