// remote-viewer's connection file (`.vv`, virt-viewer's `[virt-viewer]` section): what a viewer
// opens for a console it reaches by itself through the platform's proxy (Proxmox VE's SPICE).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VconsoleError } from '../errors.js';
import { writePrivateNewFile } from '../files/safe-file.js';

/** The file's text: one `key=value` a line; a value's own newlines written as `\n`, as virt-viewer reads them. */
export function connectionFileText(settings: Readonly<Record<string, string | number>>): string {
  const lines = Object.entries(settings).map(([key, value]) => {
    if (!/^[A-Za-z0-9-]+$/.test(key)) throw new VconsoleError(`a connection file setting has a bad key "${key.slice(0, 40)}"`);
    return `${key}=${String(value).replace(/\r?\n/g, '\\n')}`;
  });
  return `[virt-viewer]\n${lines.join('\n')}\n`;
}

/**
 * Writes the settings to a new 0600 file in a new 0700 directory and returns its path. It holds
 * a one-time password: `delete-this-file=1` makes remote-viewer remove it once read.
 */
export async function writeConnectionFile(settings: Readonly<Record<string, string | number>>, name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vconsole-'));
  const file = join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'console'}.vv`);
  await writePrivateNewFile(file, Buffer.from(connectionFileText(settings)));
  return file;
}
