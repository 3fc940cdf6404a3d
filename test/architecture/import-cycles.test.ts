/**
 * No import cycles in src/: a module that needs another which needs it back is one module in two
 * files, and the layers of docs/ARCHITECTURE.md stop meaning anything. A failure names the cycle.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, sourceModules, type ImportGraph } from './import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the import graph of src/', () => {
  const { graph, unresolved } = importGraph(root, sourceModules(root, 'src'));

  it('resolves every relative import to a file (no edge is missed)', () => {
    expect(unresolved).toEqual([]);
    // The walk found the tree, and the edges in it.
    expect(graph.get('src/cli.ts')).toContain('src/errors.ts');
  });

  it('has no cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('names a cycle through three modules once, from its smallest module', () => {
    const graph: ImportGraph = new Map([
      ['c', ['a']],
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['d', []],
    ]);
    expect(importCycles(graph)).toEqual(['a -> b -> c -> a']);
  });

  it('finds none in a graph where two modules share a third', () => {
    const graph: ImportGraph = new Map([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', []],
    ]);
    expect(importCycles(graph)).toEqual([]);
  });
});
