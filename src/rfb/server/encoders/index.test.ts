// Which encoding a client gets: the first of its own list that the server writes, as RFB says.
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEncoders, ENCODERS, settingsOf } from './index.js';

const open: ClientEncoders[] = [];
afterEach(() => {
  for (const encoders of open.splice(0)) encoders.close();
});

function chosen(list: number[]): ClientEncoders {
  const encoders = new ClientEncoders();
  open.push(encoders);
  encoders.choose(list);
  return encoders;
}

describe('ClientEncoders', () => {
  it.each([
    ['TigerVNC', [7, 1, 16, 6, 5, 0, -256 + 2, -32 + 8, -223, -239], 'tight'],
    ['gtk-vnc', [-32 + 5, 7, 16, 6, 5, 1, 0], 'tight'],
    ['a ZRLE-first client', [16, 7, 5, 0], 'zrle'],
    ['one that lists only what the server lacks (Zlib, RRE)', [6, 2], 'raw'],
    ['one that lists CopyRect before any pixel encoding', [1, 5, 0], 'hextile'],
  ])('gives %s its first listed encoding the server writes', (_client, list, name) => {
    expect(chosen(list).name).toBe(name);
  });

  it('reads the JPEG quality and compress level pseudo-encodings, and whether CopyRect is accepted', () => {
    expect(settingsOf([7, -23, -247])).toEqual({ jpegQuality: 9, compressLevel: 9 });
    expect(settingsOf([7, -32, -256])).toEqual({ jpegQuality: 0, compressLevel: 0 });
    expect(settingsOf([7, 16])).toEqual({ jpegQuality: undefined, compressLevel: undefined });
    expect(chosen([7, 1]).copyRect).toBe(true);
    expect(chosen([7]).copyRect).toBe(false);
    expect(chosen([7, 1, -254, -24]).description).toBe('tight (JPEG quality 8, compress level 2), CopyRect');
    expect(chosen([16, -24]).description).toBe('zrle');
    const again = chosen([7, -24]);
    expect(again.choose([7, -24]), 'the same list again').toBe(false);
    expect(again.choose([7, -25]), 'another quality').toBe(true);
  });

  it("keeps a connection's encoder (and its zlib streams) when the client sends SetEncodings again", () => {
    const encoders = chosen([16]);
    const first = encoders.encoder;
    encoders.choose([7]);
    const tight = encoders.encoder;
    encoders.choose([16, 7]);
    expect(encoders.encoder).toBe(first);
    encoders.choose([7, -30]);
    expect(encoders.encoder).toBe(tight);
  });

  it('lists every encoding once', () => {
    const numbers = ENCODERS.map((kind) => kind.encoding);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
