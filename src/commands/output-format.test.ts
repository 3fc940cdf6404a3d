import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { documentText } from './output-format.js';

// A C1 CSI, a right-to-left override, a tag character (astral, Cf) and a line separator: what
// JSON.stringify and yaml write as they are.
const HIDDEN = ['csi\u009b2J', 'vm-\u202eatad', 'tag\u{e0041}', 'line\u2028sep', 'esc\u001b]0;t\u0007'];
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe('documentText', () => {
  const readers: [format: 'json' | 'yaml', read: (text: string) => unknown][] = [
    ['json', (text) => JSON.parse(text)],
    ['yaml', (text) => parse(text)],
  ];
  it.each(readers)('%s: parses back exactly, with nothing invisible or obeyed left raw', async (format, read) => {
    const value = HIDDEN.map((name) => ({ name, n: 1 }));
    const text = await documentText(value, format);
    expect(text).not.toMatch(RAW);
    expect(read(text)).toEqual(value);
  });

  it('yaml of plain names stays plain', async () => {
    expect(await documentText([{ name: 'web-1' }], 'yaml')).toBe('- name: web-1\n');
  });
});
