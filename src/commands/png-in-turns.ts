import { constants, crc32, createDeflate } from 'node:zlib';
import { VconsoleError } from '../errors.js';
import type { Framebuffer } from '../rfb/index.js';
import { PNG_ROWS_PIXELS_PER_TURN } from '../limits.js';

/*
 * A screenshot's PNG written without holding the event loop: pngjs's encoder filters and
 * compresses the whole picture in one go (127 ms at 1080p, ~4 s for the 8192x8192 screen a
 * hostile console can declare), during which `open` neither draws nor hears a key or a
 * signal. Here rows are filtered a band per turn and compressed on zlib's threads.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** IDAT chunks of about this size: small enough to build, few enough not to matter. */
const IDAT_BYTES = 1024 * 1024;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))));
  return Buffer.concat([head, data, crc]);
}

/**
 * `rows` rows from `y` of a B G R X picture as PNG scanlines: R G B, each row behind filter
 * type 1 (Sub: each byte less the one a pixel before), which turns a screen's flat areas and
 * gradients into runs zlib packs well.
 */
function scanlines(source: Buffer, width: number, y: number, rows: number): Buffer {
  const rowBytes = 1 + width * 3;
  const out = Buffer.allocUnsafe(rows * rowBytes);
  for (let row = 0; row < rows; row++) {
    let from = (y + row) * width * 4;
    let at = row * rowBytes;
    out[at++] = 1;
    let r = 0;
    let g = 0;
    let b = 0;
    for (let x = 0; x < width; x++, from += 4) {
      out[at++] = (source[from + 2] - r) & 0xff;
      out[at++] = (source[from + 1] - g) & 0xff;
      out[at++] = (source[from] - b) & 0xff;
      r = source[from + 2];
      g = source[from + 1];
      b = source[from];
    }
  }
  return out;
}

/**
 * The framebuffer (B, G, R, X) as an opaque RGB PNG, a band of rows per turn of the event
 * loop. The pixels are read as the bands go: callers pass a framebuffer nothing draws on
 * any more (its console connection closed).
 */
export async function encodePngInTurns(framebuffer: Framebuffer): Promise<Buffer> {
  const { width, height } = framebuffer;
  if (width === 0 || height === 0) throw new VconsoleError('the console sent an empty screen');
  const source = framebuffer.pixels;
  const deflate = createDeflate({ level: 6, strategy: constants.Z_DEFAULT_STRATEGY });
  const compressed: Buffer[] = [];
  deflate.on('data', (data: Buffer) => compressed.push(data));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });
  const bandRows = Math.max(1, Math.floor(PNG_ROWS_PIXELS_PER_TURN / width));
  for (let y = 0; y < height; y += bandRows) {
    const rows = Math.min(bandRows, height - y);
    // The compressor is given a band at a time and works it off the loop; this waits for it.
    if (!deflate.write(scanlines(source, width, y, rows))) await new Promise((resolve) => deflate.once('drain', resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
  deflate.end();
  await ended;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type: RGB
  const data = Buffer.concat(compressed);
  const idats: Buffer[] = [];
  for (let at = 0; at < data.length; at += IDAT_BYTES) idats.push(chunk('IDAT', data.subarray(at, at + IDAT_BYTES)));
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), ...idats, chunk('IEND', Buffer.alloc(0))]);
}
