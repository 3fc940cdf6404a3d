/** Raw (encoding 0): the pixels as they are, in the client's format. */
import type { EncoderKind } from './encoder.js';

export const raw: EncoderKind<'raw'> = {
  name: 'raw',
  encoding: 0,
  create: () => ({
    tileRows: 1,
    pixelCost: 1,
    shareKey: 'raw',
    band: ({ pixels, width, rect, packer }) => ({ parts: [packer.rawBytes(pixels, width, rect)] }),
    close: () => undefined,
  }),
};
