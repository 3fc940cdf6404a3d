import { describe, expect, it } from 'vitest';
import { KITTY_CHUNK_BYTES, kittyDelete, kittyImage } from './kitty.js';

const ESC = '\u001B';

describe('kittyImage', () => {
  it('sends a small RGB picture as one APC command: a=T,f=24,s=W,v=H, the cells, base64 data, ST', () => {
    const pixels = Uint8Array.from([255, 0, 0, 0, 0, 255]);
    const out = kittyImage(pixels, 2, 1, 24, { columns: 10, rows: 4, imageId: 7 });
    expect(out).toBe(`${ESC}_Ga=T,f=24,s=2,v=1,c=10,r=4,i=7,q=2,C=1;/wAAAAD/${ESC}\\`);
  });

  it('cuts a large payload into 4096-byte chunks: keys and m=1 first, m=1 in between, m=0 last', () => {
    const pixels = new Uint8Array(3 * 4000).map((_, i) => i % 251);
    const out = kittyImage(pixels, 80, 50, 24, { columns: 20, rows: 12 });
    const commands = out.split(`${ESC}\\`).filter(Boolean);
    const payload = Buffer.from(pixels).toString('base64');
    expect(commands).toHaveLength(Math.ceil(payload.length / KITTY_CHUNK_BYTES));
    expect(commands.length).toBe(4);
    expect(commands[0]).toBe(`${ESC}_Ga=T,f=24,s=80,v=50,c=20,r=12,q=2,C=1,m=1;${payload.slice(0, 4096)}`);
    expect(commands[1]).toBe(`${ESC}_Gm=1;${payload.slice(4096, 8192)}`);
    expect(commands[2]).toBe(`${ESC}_Gm=1;${payload.slice(8192, 12288)}`);
    expect(commands[3]).toBe(`${ESC}_Gm=0;${payload.slice(12288)}`);
    for (const command of commands) expect(command.length - command.indexOf(';') - 1).toBeLessThanOrEqual(4096);
    expect(Buffer.from(commands.map((c) => c.slice(c.indexOf(';') + 1)).join(''), 'base64')).toEqual(Buffer.from(pixels));
  });

  it('leaves the size to a PNG (f=100) and RGBA says f=32', () => {
    expect(kittyImage(Uint8Array.from([1, 2, 3, 4]), 1, 1, 32, { columns: 1, rows: 1 })).toBe(
      `${ESC}_Ga=T,f=32,s=1,v=1,c=1,r=1,q=2,C=1;AQIDBA==${ESC}\\`,
    );
    expect(kittyImage(Uint8Array.from([1]), 1, 1, 100, { columns: 1, rows: 1 })).toBe(`${ESC}_Ga=T,f=100,c=1,r=1,q=2,C=1;AQ==${ESC}\\`);
  });

  it('deletes an image by id', () => {
    expect(kittyDelete(7)).toBe(`${ESC}_Ga=d,d=I,i=7,q=2${ESC}\\`);
  });
});
