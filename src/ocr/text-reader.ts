/**
 * One OCR worker for the screens of a command: tesseract.js's worker thread (the recognition never
 * runs on the event loop), its English LSTM model read from a local directory: the installed
 * @tesseract.js-data/eng, or, inside the single executable, the copy its assets unpack
 * (sea-assets.ts). `cacheMethod: 'none'` keeps tesseract.js from writing the model into the
 * working directory, and a local `langPath` keeps it from the CDN it would otherwise fetch from.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { VconsoleError, describeError } from '../errors.js';
import { seaOcrFiles } from './sea-assets.js';
import type { ScreenPixels } from './grayscale.js';
import { grayscaleImage } from './grayscale.js';

/** The model: tesseract.js's own choice for its LSTM engine (integer weights, 3 MB). */
const MODEL_DIR = '4.0.0_best_int';

/** Reads the text of a screen's picture, one picture at a time. */
export interface TextReader {
  /** The text of the picture, lines as the recogniser found them. */
  read(screen: ScreenPixels): Promise<string>;
  close(): Promise<void>;
}

/** OCR cannot run in this vconsole (its files are missing). */
class OcrUnavailableError extends VconsoleError {}

/** Where tesseract.js's worker script and the model are. */
interface OcrFiles {
  /** The worker script; undefined: tesseract.js's own, beside its package. */
  workerPath?: string;
  langPath: string;
}

function installedFiles(): OcrFiles {
  const resolver = createRequire(import.meta.url);
  const eng = path.dirname(resolver.resolve('@tesseract.js-data/eng/package.json'));
  return { langPath: path.join(eng, MODEL_DIR) };
}

/** A worker ready to read, its model loaded; an OcrUnavailableError saying why when it cannot start. */
export async function openTextReader(): Promise<TextReader> {
  let files: OcrFiles;
  let tesseract: typeof import('tesseract.js');
  try {
    files = seaOcrFiles() ?? installedFiles();
    tesseract = await import('tesseract.js');
  } catch (err) {
    throw new OcrUnavailableError(`reading a screen's text (OCR) is unavailable in this vconsole: ${describeError(err)}`, {
      hint: 'wait on the serial console (#serial), or use vconsole from npm',
    });
  }
  const createWorker = tesseract.createWorker ?? (tesseract as unknown as { default: typeof tesseract }).default.createWorker;
  let worker: Awaited<ReturnType<typeof createWorker>>;
  try {
    worker = await createWorker('eng', tesseract.OEM?.LSTM_ONLY ?? 1, {
      langPath: files.langPath,
      ...(files.workerPath ? { workerPath: files.workerPath } : {}),
      cacheMethod: 'none',
      gzip: true,
      errorHandler: () => undefined,
    });
  } catch (err) {
    throw new OcrUnavailableError(`the OCR worker did not start: ${describeError(err)}`);
  }
  return {
    async read(screen) {
      const result = await worker.recognize(grayscaleImage(screen));
      return result.data.text;
    },
    async close() {
      await worker.terminate().catch(() => undefined);
    },
  };
}
