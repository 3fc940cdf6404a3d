import { constants, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CLIPBOARD_CAPS,
  CLIPBOARD_NOTIFY,
  CLIPBOARD_PROVIDE,
  CLIPBOARD_REQUEST,
  CLIPBOARD_TEXT,
  parseClipboardMessage,
} from './extended-clipboard.js';

function words(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => out.writeUInt32BE(value >>> 0, i * 4));
  return out;
}

function provide(inner: Buffer): Buffer {
  return Buffer.concat([words(CLIPBOARD_PROVIDE | CLIPBOARD_TEXT), deflateSync(inner)]);
}

describe('parseClipboardMessage', () => {
  it('reads caps with the actions beside the caps bit, and the text size limit', () => {
    expect(parseClipboardMessage(words(CLIPBOARD_CAPS | CLIPBOARD_NOTIFY | CLIPBOARD_TEXT, 4096), 100)).toEqual({
      action: 'caps',
      flags: CLIPBOARD_CAPS | CLIPBOARD_NOTIFY | CLIPBOARD_TEXT,
      maxText: 4096,
    });
  });

  it('reads provided text as UTF-8, CRLF as LF, without its NUL', () => {
    const text = Buffer.from('a\r\nb ✓\0', 'utf8');
    expect(parseClipboardMessage(provide(Buffer.concat([words(text.length), text])), 100)).toEqual({ action: 'provide', text: 'a\nb ✓' });
  });

  it('reads a provide whose zlib stream is flushed but not ended, as noVNC sends it', () => {
    const text = Buffer.from('from noVNC\0', 'utf8');
    const stream = deflateSync(Buffer.concat([words(text.length), text]), { finishFlush: constants.Z_SYNC_FLUSH });
    expect(parseClipboardMessage(Buffer.concat([words(CLIPBOARD_PROVIDE | CLIPBOARD_TEXT), stream]), 100)).toEqual({
      action: 'provide',
      text: 'from noVNC',
    });
  });

  it('takes nothing from hostile payloads: too short, no action, two actions, a size past the data or the limit, no zlib', () => {
    const text = Buffer.from('hello\0');
    expect(parseClipboardMessage(Buffer.alloc(3), 100)).toBeUndefined();
    expect(parseClipboardMessage(words(CLIPBOARD_CAPS | CLIPBOARD_TEXT), 100)).toBeUndefined();
    expect(parseClipboardMessage(words(CLIPBOARD_TEXT), 100)).toBeUndefined();
    expect(parseClipboardMessage(words(CLIPBOARD_REQUEST | CLIPBOARD_NOTIFY | CLIPBOARD_TEXT), 100)).toBeUndefined();
    expect(parseClipboardMessage(provide(Buffer.concat([words(0xffffffff), text])), 100)).toEqual({ action: 'provide', text: undefined });
    expect(parseClipboardMessage(provide(Buffer.concat([words(text.length), text])), 4)).toEqual({ action: 'provide', text: undefined });
    expect(parseClipboardMessage(provide(Buffer.alloc(200_000)), 100)).toEqual({ action: 'provide', text: undefined });
    expect(parseClipboardMessage(Buffer.concat([words(CLIPBOARD_PROVIDE | CLIPBOARD_TEXT), Buffer.from('junk')]), 100)).toEqual({
      action: 'provide',
      text: undefined,
    });
  });
});
