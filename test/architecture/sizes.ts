/**
 * Sizes of src/'s functions and files, for the size rule: a function over FUNCTION_LINES lines
 * or a file over FILE_LINES says why in a `// long:` comment (a function's on a line just above
 * it, a file's among its first lines), or it is named as too long.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** About 80 lines, as docs/ARCHITECTURE.md says; a little slack so a line added to a function near it is no failure. */
export const FUNCTION_LINES = 85;
/** About 300 lines. */
export const FILE_LINES = 320;

const REASON = /\/\/ long: \S/;

/** A function (or file) too long without a reason: where it is, its name and its length. */
export interface Oversized {
  where: string;
  name: string;
  lines: number;
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return parent.name.getText();
  return '(anonymous)';
}

/** Whether one of the few lines just above `line` (0-based) gives a reason. */
function reasonAbove(lines: string[], line: number): boolean {
  return lines.slice(Math.max(0, line - 4), line).some((text) => REASON.test(text));
}

/** The functions and the file of one module that are too long and say no reason. */
export function oversized(file: string, text: string): Oversized[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lines = text.split('\n');
  const found: Oversized[] = [];
  const fileLines = lines.length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > FILE_LINES && !lines.slice(0, 12).some((line) => REASON.test(line)))
    found.push({ where: file, name: '(file)', lines: fileLines });
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      // The statement a function expression belongs to (`const f = () => ...`) starts the search for a reason.
      const statement = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) ? node : (node.parent ?? node);
      const top = source.getLineAndCharacterOfPosition(statement.getStart()).line;
      if (last - first + 1 > FUNCTION_LINES && !reasonAbove(lines, Math.min(first, top)))
        found.push({ where: `${file}:${first + 1}`, name: functionName(node), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every non-test, non-generated module under dir (relative to root). */
export function sourceFiles(root: string, dir: string): string[] {
  return (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[])
    .map((file) => path.join(dir, file))
    .filter((file) => /\.tsx?$/.test(file) && !/\.(test|generated)\.tsx?$/.test(file) && !file.endsWith('.d.ts'));
}
