// remote-viewer's connection file (`.vv`, virt-viewer's `[virt-viewer]` section): what a viewer
// opens for a console it reaches by itself through the platform's proxy (Proxmox VE's SPICE).
// The settings come from an API (or a far vconsole): only those that say where and how to reach
// the console are kept, and the file, which holds a one-time password, lives no longer than its viewer.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { VconsoleError } from '../errors.js';
import { writePrivateNewFile } from '../files/safe-file.js';

/**
 * The keys kept of what the API gives: the console's address and credentials (type, host, port,
 * tls-port, password, proxy, ca, host-subject) and the window's title and keys, as Proxmox VE's
 * spiceproxy answers. Any other is dropped: those that reach this machine (enable-usbredir,
 * usb-filter, enable-smartcard, smartcard-insert), weaken the connection (tls-ciphers,
 * secure-channels, disable-channels) or send the user somewhere (newer-version-url).
 */
const KEPT_KEYS: ReadonlySet<string> = new Set([
  'type',
  'host',
  'port',
  'tls-port',
  'password',
  'proxy',
  'ca',
  'host-subject',
  'title',
  'secure-attention',
  'release-cursor',
  'toggle-fullscreen',
]);

/**
 * Set whatever the API said: no USB device plugged into this machine and no smartcard goes to the
 * VM unasked, and remote-viewer deletes the file once it has read it.
 */
const FORCED: Readonly<Record<string, number>> = { 'enable-usb-autoshare': 0, 'enable-smartcard': 0, 'delete-this-file': 1 };

/** What of `given` a connection file holds: the kept keys, then the forced ones. */
export function connectionFileSettings(given: Readonly<Record<string, string | number>>): Record<string, string | number> {
  return { ...Object.fromEntries(Object.entries(given).filter(([key]) => KEPT_KEYS.has(key))), ...FORCED };
}

/**
 * The file's text: one `key=value` a line; a value's own newlines written as `\n`, as virt-viewer
 * reads them. A key of other characters, or a value with another control character, is refused.
 */
export function connectionFileText(settings: Readonly<Record<string, string | number>>): string {
  const lines = Object.entries(settings).map(([key, value]) => {
    if (!/^[A-Za-z0-9-]+$/.test(key)) throw new VconsoleError(`a connection file setting has a bad key "${key.slice(0, 40)}"`);
    const text = String(value).replace(/\r?\n/g, '\\n');
    if (/[\u0000-\u001f\u007f]/.test(text)) throw new VconsoleError(`the connection file setting ${key} holds a control character`);
    return `${key}=${text}`;
  });
  return `[virt-viewer]\n${lines.join('\n')}\n`;
}

/** The directories of the connection files still there: removed when vconsole exits, however it exits. */
const written = new Set<string>();
let exitHookInstalled = false;

function removeAllAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => [...written].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
}

/**
 * Writes the settings (connectionFileSettings of them) to a new 0600 file in a new 0700
 * directory and returns its path; removeConnectionFile, or vconsole's exit, removes both.
 */
export async function writeConnectionFile(settings: Readonly<Record<string, string | number>>, name: string): Promise<string> {
  const text = connectionFileText(connectionFileSettings(settings));
  const dir = await mkdtemp(join(tmpdir(), 'vconsole-'));
  removeAllAtExit();
  written.add(dir);
  const file = join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'console'}.vv`);
  await writePrivateNewFile(file, Buffer.from(text));
  return file;
}

/** Removes a file writeConnectionFile wrote, and its directory (nothing when remote-viewer deleted the file already). */
export function removeConnectionFile(file: string): void {
  const dir = dirname(file);
  if (!written.delete(dir)) return;
  rmSync(dir, { recursive: true, force: true });
}
