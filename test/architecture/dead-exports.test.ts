/**
 * No dead exports in src/: every name a module of src/ exports is imported somewhere (src/,
 * test/ or scripts/), so what a module offers is what its callers use. A failure names each
 * export nobody imports: delete it, or drop `export` when the module uses it itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deadExports } from './dead-exports.js';
import { sourceModules } from './import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Exports kept for a caller outside the TypeScript graph. */
const ENTRY_POINTS = [
  // bin/vconsole.js (and the single executable's stub, scripts/bundle.mjs) runs the built main().
  'src/cli.ts: main',
  // scripts/packaging/man-page.mjs writes vconsole(1) with the built manPage().
  'src/commands/man-page.ts: manPage',
];

describe('the exports of src/', () => {
  it('are each imported by some module', () => {
    const importers = [...sourceModules(root, 'src'), ...sourceModules(root, 'test'), ...sourceModules(root, 'scripts')];
    // A generated module (the browser page's assets) is written by its generator, read by a lazy import().
    const checked = sourceModules(root, 'src').filter((file) => !/\.(test|generated)\.tsx?$/.test(file));
    expect(deadExports(root, importers, checked, ENTRY_POINTS)).toEqual([]);
  });
});

describe('the dead export finder', () => {
  const modules: Record<string, string> = {
    'src/a.ts': 'export const used = 1;\nexport const unused = 2;\nexport type Shape = { x: number };\nexport function lazy(): void {}\n',
    'src/b.ts': "export * from './a.js';\nexport const viaStar = 3;\n",
    'src/c.ts':
      "import { used } from './a.js';\nimport type { Shape } from './a.js';\nimport { viaStar } from './b.js';\nexport const all = (s: Shape) => used + viaStar + s.x;\n",
    'src/d.ts': "export async function load(): Promise<void> {\n  const { lazy } = await import('./a.js');\n  lazy();\n}\n",
    'src/e.ts': 'export const whole = 1;\nexport const alsoWhole = 2;\n',
    'test/t.ts':
      "import * as e from '../src/e.js';\nimport { all } from '../src/c.js';\nimport { load } from '../src/d.js';\nvoid [e, all, load];\n",
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dead-exports-'));
  for (const [file, text] of Object.entries(modules)) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const src = Object.keys(modules).filter((file) => file.startsWith('src/'));

  it('names what nobody imports, counting type, lazy, namespace and `export *` imports', () => {
    expect(deadExports(dir, Object.keys(modules), src, [])).toEqual(['src/a.ts: unused']);
  });

  it('lets an allowed entry point through', () => {
    expect(deadExports(dir, Object.keys(modules), src, ['src/a.ts: unused'])).toEqual([]);
  });
});
