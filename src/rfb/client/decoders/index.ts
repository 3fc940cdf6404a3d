/**
 * The pixel encodings vconsole decodes, one line each, in the order of preference the client
 * asks for them in unless told otherwise: a new encoding is its file and one line here.
 *
 * That order, measured against QEMU 7.2: it uses the first encoding of the list it knows
 * (never CopyRect); a full 720x400 BIOS screen takes 1.15 MB in Raw, 5.3 KB in Hextile,
 * 3.2 KB in Zlib, 1.3 KB in ZRLE or Tight. ZRLE decodes in one linear pass over one zlib
 * stream, and for consoles reached through websockets and TLS the bytes received cost more CPU
 * than inflating them.
 */
import { copyRect } from './copyrect.js';
import { hextile } from './hextile.js';
import { raw } from './raw.js';
import { tight } from './tight.js';
import { zlib } from './zlib.js';
import { zrle } from './zrle.js';

export const DECODERS = [zrle, hextile, tight, zlib, copyRect, raw] as const;

export type PixelEncodingName = (typeof DECODERS)[number]['name'];
