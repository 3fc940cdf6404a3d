/**
 * Reading a screen's text (OCR), for `vconsole wait` on a VNC console: tesseract.js, loaded only
 * when a command reads a screen, with the English model of @tesseract.js-data/eng read from the
 * installed package (or the single executable's assets): nothing is downloaded, ever.
 */
export { openTextReader, type TextReader } from './text-reader.js';
