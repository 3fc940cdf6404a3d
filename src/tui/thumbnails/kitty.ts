/**
 * Pictures in the kitty graphics protocol: an APC escape `ESC _ G <keys> ; <base64> ESC \`.
 * The payload is cut into chunks of at most 4096 base64 bytes; when there is more than one,
 * the first carries every key and `m=1`, the middle ones only `m=1`, the last `m=0`. Pure.
 */

const ESC = '\u001B';
export const KITTY_CHUNK_BYTES = 4096;

interface KittyPlacement {
  /** Cells the image is scaled to fill (`c`, `r`): the tile's picture area. */
  columns: number;
  rows: number;
  /** `i`: a later image with the same id replaces this one on screen. */
  imageId?: number;
  /** `p`: placing the image again with the same placement id moves it rather than adding one. */
  placementId?: number;
}

type KittyFormat = 24 | 32 | 100;

/**
 * One transmit-and-display (`a=T`) command for `data`: raw RGB (`f=24`, 3 bytes a pixel),
 * RGBA (`f=32`) or PNG (`f=100`) of `width` x `height` pixels. `q=2` keeps the terminal from
 * answering (an answer would arrive on stdin as keys); `C=1` leaves the cursor where it was.
 */
export function kittyImage(data: Uint8Array, width: number, height: number, format: KittyFormat, placement: KittyPlacement): string {
  const keys = [
    `a=T`,
    `f=${format}`,
    ...(format === 100 ? [] : [`s=${width}`, `v=${height}`]),
    `c=${placement.columns}`,
    `r=${placement.rows}`,
  ];
  if (placement.imageId !== undefined) keys.push(`i=${placement.imageId}`);
  if (placement.placementId !== undefined) keys.push(`p=${placement.placementId}`);
  keys.push('q=2', 'C=1');
  const payload = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  const chunks: string[] = [];
  for (let at = 0; at < payload.length; at += KITTY_CHUNK_BYTES) chunks.push(payload.slice(at, at + KITTY_CHUNK_BYTES));
  if (chunks.length <= 1) return `${ESC}_G${keys.join(',')};${chunks[0] ?? ''}${ESC}\\`;
  return chunks
    .map((chunk, i) => {
      const more = i < chunks.length - 1 ? 'm=1' : 'm=0';
      const control = i === 0 ? `${keys.join(',')},${more}` : more;
      return `${ESC}_G${control};${chunk}${ESC}\\`;
    })
    .join('');
}

/** Shows image `imageId`, sent before, again: `a=p`, the same placement id moving it here. */
export function kittyPlace(imageId: number, placement: { columns: number; rows: number; placementId: number }): string {
  return `${ESC}_Ga=p,i=${imageId},p=${placement.placementId},c=${placement.columns},r=${placement.rows},q=2,C=1${ESC}\\`;
}

/** Deletes the placements of image `imageId` (and frees its data): `a=d,d=I`. */
export function kittyDelete(imageId: number): string {
  return `${ESC}_Ga=d,d=I,i=${imageId},q=2${ESC}\\`;
}
