import { join } from 'node:path';
import type { Rect } from './images.js';
import { runProgram } from './processes.js';

/**
 * The text tesseract reads in `file` (or in `area` of it). A BIOS screen is light text on black:
 * it is inverted and doubled in size first, which tesseract reads reliably.
 */
export async function readText(file: string, area?: Rect): Promise<string> {
  const prepared = `${file}.ocr.png`;
  const crop = area ? ['-crop', `${area.width}x${area.height}+${area.x}+${area.y}`, '+repage'] : [];
  const converted = await runProgram('convert', [file, ...crop, '-negate', '-resize', '200%', prepared], { timeoutMs: 30_000 });
  if (converted.code !== 0) throw new Error(`convert failed: ${converted.stderr}`);
  const read = await runProgram('tesseract', [prepared, '-'], { timeoutMs: 60_000 });
  if (read.code !== 0) throw new Error(`tesseract failed: ${read.stderr}`);
  return read.stdout;
}

/** What the VM's own display shows now, as text: QEMU's screendump through QMP, read by tesseract. */
export async function vmScreenText(
  qmp: { execute(command: string, args?: Record<string, unknown>): Promise<unknown> },
  dir: string,
  label: string,
): Promise<string> {
  const file = join(dir, `screendump-${label}-${Date.now()}.ppm`);
  await qmp.execute('screendump', { filename: file });
  return readText(file);
}
