/**
 * The exports of src/ that no module imports: read with the TypeScript compiler's parser (no type
 * checker, so it runs in a second), every static import, `export ... from`, `import type`,
 * `typeof import()` and lazy `import()` of src/, test/ and scripts/ counting as a use. An export
 * nobody imports is either dead code or a name that should not be exported; a module kept for
 * its own entry point (src/cli.ts, started by bin/vconsole.js) is allowed by the caller.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { resolveRelative } from './import-graph.js';

/** `module: name` for one export of one module (a path from the repository root). */
const key = (module_: string, name: string): string => `${module_}: ${name}`;

function parse(root: string, file: string): ts.SourceFile {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names `file` exports itself (declarations, `export { }` lists, re-exports) and the modules it `export *`s. */
function exportsOf(root: string, file: string, source: ts.SourceFile): { names: string[]; star: string[] } {
  const names: string[] = [];
  const star: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        names.push(...statement.exportClause.elements.map((element) => element.name.text));
      } else if (statement.exportClause) {
        names.push(statement.exportClause.name.text);
      } else if (statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
        const target = resolveRelative(root, file, statement.moduleSpecifier.text);
        if (target) star.push(target);
      }
    } else if (ts.isExportAssignment(statement)) {
      names.push('default');
    } else if (isExported(statement)) {
      const isDefault = (ts.getModifiers(statement as ts.HasModifiers) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (isDefault) names.push('default');
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
        }
      } else {
        const { name } = statement as ts.DeclarationStatement;
        if (name && ts.isIdentifier(name)) names.push(name.text);
      }
    }
  }
  return { names, star };
}

/**
 * The names an `import()` of a module is read for: those destructured from `await import()` or
 * read off it (`(await import(x)).name`); undefined when the module object goes further (all used).
 */
function namesReadOffLazyImport(call: ts.Node): string[] | undefined {
  let at = call.parent;
  if (at && ts.isAwaitExpression(at)) at = at.parent;
  while (at && (ts.isParenthesizedExpression(at) || ts.isAsExpression(at))) at = at.parent;
  if (at && ts.isVariableDeclaration(at) && ts.isObjectBindingPattern(at.name)) {
    const names = at.name.elements.map((element) => (element.propertyName ?? element.name).getText());
    return names.every((name) => /^\w+$/.test(name)) ? names : undefined;
  }
  if (at && ts.isPropertyAccessExpression(at)) return [at.name.text];
  return undefined;
}

/** Every `module: name` a module imports (name '*' for a module read as a whole: `import *`, an opaque `import()`). */
function importsOf(root: string, file: string, source: ts.SourceFile, markUsed: (target: string, name: string) => void): void {
  const resolve = (specifier: ts.Node | undefined): string | undefined =>
    specifier && ts.isStringLiteralLike(specifier) && specifier.text.startsWith('.')
      ? resolveRelative(root, file, specifier.text)
      : undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const target = resolve(node.moduleSpecifier);
      const clause = node.importClause;
      if (target && clause) {
        if (clause.name) markUsed(target, 'default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) markUsed(target, '*');
        else if (bindings) for (const element of bindings.elements) markUsed(target, (element.propertyName ?? element.name).text);
      }
    } else if (ts.isExportDeclaration(node)) {
      const target = resolve(node.moduleSpecifier);
      if (target && node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements) markUsed(target, (element.propertyName ?? element.name).text);
      } else if (target && node.exportClause) markUsed(target, '*');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const target = resolve(node.arguments[0]);
      if (target) for (const name of namesReadOffLazyImport(node) ?? ['*']) markUsed(target, name);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const target = resolve(node.argument.literal);
      if (target) markUsed(target, node.qualifier ? node.qualifier.getText().split('.')[0] : '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/**
 * The exports of `checked` (modules of src/) that none of `importers` imports, as `module: name`,
 * sorted; `allowed` are entry points kept for a caller outside the graph.
 */
export function deadExports(root: string, importers: readonly string[], checked: readonly string[], allowed: readonly string[]): string[] {
  const sources = new Map(importers.map((file) => [file, parse(root, file)]));
  const used = new Set<string>();
  const wholeModules = new Set<string>();
  for (const [file, source] of sources) {
    importsOf(root, file, source, (target, name) => (name === '*' ? wholeModules.add(target) : used.add(key(target, name))));
  }
  // What a module `export *`s is used when it is used through that module.
  const exported = new Map([...sources].map(([file, source]) => [file, exportsOf(root, file, source)]));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [file, { star }] of exported) {
      for (const target of star) {
        const names = exported.get(target)?.names ?? [];
        for (const name of names) {
          if ((wholeModules.has(file) || used.has(key(file, name))) && !used.has(key(target, name))) {
            used.add(key(target, name));
            grew = true;
          }
        }
        if (wholeModules.has(file) && !wholeModules.has(target)) {
          wholeModules.add(target);
          grew = true;
        }
      }
    }
  }
  const dead = checked.flatMap((file) =>
    wholeModules.has(file) ? [] : (exported.get(file)?.names ?? []).map((name) => key(file, name)).filter((k) => !used.has(k)),
  );
  return dead.filter((k) => !allowed.includes(k)).sort();
}
