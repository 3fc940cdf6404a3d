/**
 * OCR inside the single executable, which can load no file of node_modules: scripts/package.mjs
 * stores tesseract.js's worker (bundled with its WebAssembly cores' loaders), the full cores' .wasm
 * files and the English model as SEA assets (OCR_ASSETS); on first use they are written once to
 * a directory of this user's (0700, named by their content), where the worker thread loads them
 * as files. Outside the executable: undefined, the installed packages are used.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The asset names package.mjs stores, the worker script first; the model's file name is tesseract.js's. */
const OCR_ASSETS = [
  'ocr/worker.cjs',
  'ocr/tesseract-core.wasm',
  'ocr/tesseract-core-simd.wasm',
  'ocr/tesseract-core-relaxedsimd.wasm',
  'ocr/eng.traineddata.gz',
] as const;

interface SeaModule {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

function seaModule(): SeaModule | undefined {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as SeaModule;
    return sea.isSea() ? sea : undefined;
  } catch {
    return undefined;
  }
}

/** The unpacked worker and model directory inside the single executable; undefined outside it. */
export function seaOcrFiles(): { workerPath: string; langPath: string } | undefined {
  const sea = seaModule();
  if (!sea) return undefined;
  const assets = OCR_ASSETS.map((name) => ({ name: path.basename(name), bytes: Buffer.from(sea.getAsset(name)) }));
  const hash = createHash('sha256');
  for (const asset of assets) hash.update(asset.name).update(asset.bytes);
  const dir = path.join(os.tmpdir(), `vconsole-ocr-${process.getuid?.() ?? 'user'}-${hash.digest('hex').slice(0, 16)}`);
  if (!fs.existsSync(path.join(dir, 'complete'))) unpack(dir, assets);
  // Someone else's directory of that name is not trusted with code the worker runs.
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0)
    throw new Error(`${dir} is not a private directory of yours`);
  return { workerPath: path.join(dir, 'worker.cjs'), langPath: dir };
}

/** Writes the files into a fresh private directory and renames it into place (another vconsole may race). */
function unpack(dir: string, assets: readonly { name: string; bytes: Buffer }[]): void {
  const scratch = fs.mkdtempSync(`${dir}.`);
  for (const asset of assets) fs.writeFileSync(path.join(scratch, asset.name), asset.bytes, { mode: 0o600 });
  fs.writeFileSync(path.join(scratch, 'complete'), '');
  try {
    fs.renameSync(scratch, dir);
  } catch {
    // Another vconsole unpacked the same files first.
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
