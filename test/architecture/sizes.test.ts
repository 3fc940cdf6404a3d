/**
 * Functions of about 80 lines at most, files of about 300 (docs/ARCHITECTURE.md): a longer one
 * says why in a `// long: REASON` comment, or this names it (file:line, name, lines) to be split.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FILE_LINES, FUNCTION_LINES, oversized, sourceFiles } from './sizes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the sizes of src/', () => {
  it('every function and file is short, or says why it is not', () => {
    const found = sourceFiles(root, 'src').flatMap((file) => oversized(file, fs.readFileSync(path.join(root, file), 'utf8')));
    expect(found.map(({ where, name, lines }) => `${where} ${name}: ${lines} lines`)).toEqual([]);
  });
});

describe('the size rule', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const fn = (n: number, above = '') => `${above}export function f() {\n${body(n)}\n}\n`;

  it('names a function over the limit, and takes one a reason is given for', () => {
    expect(oversized('src/a.ts', fn(FUNCTION_LINES))).toEqual([{ where: 'src/a.ts:1', name: 'f', lines: FUNCTION_LINES + 2 }]);
    expect(oversized('src/a.ts', fn(FUNCTION_LINES - 2))).toEqual([]);
    expect(oversized('src/a.ts', fn(FUNCTION_LINES, '// long: one case per protocol phase\n'))).toEqual([]);
  });

  it('counts arrow functions and methods by the name they are given', () => {
    const arrow = `const g = () => {\n${body(FUNCTION_LINES)}\n};\n`;
    const method = `class C {\n  m() {\n${body(FUNCTION_LINES)}\n  }\n}\n`;
    expect(oversized('src/b.ts', arrow).map((o) => o.name)).toEqual(['g']);
    expect(oversized('src/c.tsx', method).map((o) => o.name)).toEqual(['m']);
  });

  it('names a file over the limit unless its first lines say why', () => {
    const long = Array.from({ length: FILE_LINES + 1 }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n';
    expect(oversized('src/d.ts', long)).toEqual([{ where: 'src/d.ts', name: '(file)', lines: FILE_LINES + 1 }]);
    expect(oversized('src/d.ts', `// long: the table of every keysym\n${long}`)).toEqual([]);
  });
});
