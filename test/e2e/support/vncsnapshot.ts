import { join } from 'node:path';
import { readImage, type RgbImage } from './images.js';
import { runProgram } from './processes.js';

export interface VncSnapshot {
  /** The picture vncsnapshot saved (decoded). */
  image: RgbImage;
  /** The framebuffer size the server announced in ServerInit, as vncsnapshot reports it. */
  width: number;
  height: number;
  /** The desktop name from ServerInit (QEMU: `QEMU (NAME)` with `-name NAME`). */
  desktopName: string;
  file: string;
}

let counter = 0;

/** Reads what vncsnapshot -verbose tells about the session. */
export function parseVncSnapshotLog(text: string): { desktopName?: string; width?: number; height?: number } {
  const name = /Desktop name "(.*)"/.exec(text)?.[1];
  const size = /from .* (\d+)x(\d+) screen/.exec(text);
  return { desktopName: name, width: size ? Number(size[1]) : undefined, height: size ? Number(size[2]) : undefined };
}

/**
 * Takes one picture of a VNC server with vncsnapshot, a real RFB client (TightVNC's code):
 * `vncsnapshot -verbose -allowblank -quality 100 127.0.0.1::PORT out.jpg` (`::` = a port, not
 * a display number), with `options` before the address. Rejects with vncsnapshot's output when it fails.
 */
export async function takeVncSnapshot(
  port: number,
  dir: string,
  host = '127.0.0.1',
  options: readonly string[] = [],
): Promise<VncSnapshot> {
  const file = join(dir, `snapshot-${port}-${++counter}.jpg`);
  const args = ['-verbose', '-allowblank', '-quality', '100', ...options, `${host}::${port}`, file];
  const result = await runProgram('vncsnapshot', args, { timeoutMs: 60_000 });
  const log = `${result.stdout}\n${result.stderr}`;
  if (result.code !== 0) throw new Error(`vncsnapshot ${args.join(' ')} exited with ${result.code}:\n${log.trim()}`);
  const info = parseVncSnapshotLog(log);
  if (info.width === undefined || info.height === undefined || info.desktopName === undefined) {
    throw new Error(`vncsnapshot did not report the session:\n${log.trim()}`);
  }
  const image = await readImage(file);
  return { image, width: info.width, height: info.height, desktopName: info.desktopName, file };
}
