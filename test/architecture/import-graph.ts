/**
 * The import graph of src/, read with the TypeScript compiler's own import scanner (static
 * imports, `export ... from`, `import type` and `await import()` alike: a cycle through a type
 * or a lazy import is still two modules that each need the other). Kept apart from the test
 * so the cycle finder can be checked on a graph small enough to see by eye.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Module (path from the repository root) -> the modules it imports. */
export type ImportGraph = Map<string, string[]>;

/** Every .ts/.tsx module under `dir` (declaration files aside), as paths from `root`. */
export function sourceModules(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(path.join(root, at), { withFileTypes: true })) {
      const child = path.posix.join(at, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * The file a relative specifier names, as NodeNext writes it (`./x.js` for x.ts or x.tsx), or
 * undefined when none exists. Bare specifiers (packages, `node:`) are not part of the graph.
 */
export function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const stem = base.replace(/\.js$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`];
  return candidates.find((candidate) => fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile());
}

/**
 * The graph of `modules`; a relative specifier that names no file is listed in `unresolved`
 * (the graph would otherwise miss an edge in silence).
 */
export function importGraph(root: string, modules: readonly string[]): { graph: ImportGraph; unresolved: string[] } {
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  for (const file of modules) {
    const scanned = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets: string[] = [];
    for (const { fileName } of scanned.importedFiles) {
      // Packages and `node:` are outside the graph; a generated file (the browser page's assets,
      // written by `npm run build`) imports nothing and may not exist before a build.
      if (!fileName.startsWith('.') || fileName.endsWith('.generated.js')) continue;
      const target = resolveRelative(root, file, fileName);
      if (target === undefined) unresolved.push(`${file}: ${fileName}`);
      else if (!/\.(css|json)$/.test(target)) targets.push(target);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return { graph, unresolved };
}

/**
 * One cycle per back edge a depth-first walk meets, each written `a -> b -> a` starting at its
 * smallest module so the same cycle reads the same on every run.
 */
export function importCycles(graph: ImportGraph): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles = new Set<string>();
  const visit = (from: string): void => {
    state.set(from, 'open');
    stack.push(from);
    for (const target of graph.get(from) ?? []) {
      if (state.get(target) === 'open') {
        const loop = stack.slice(stack.indexOf(target));
        const start = loop.indexOf([...loop].sort()[0]);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...rotated, rotated[0]].join(' -> '));
      } else if (!state.has(target)) {
        visit(target);
      }
    }
    stack.pop();
    state.set(from, 'done');
  };
  for (const from of [...graph.keys()].sort()) if (!state.has(from)) visit(from);
  return [...cycles].sort();
}
