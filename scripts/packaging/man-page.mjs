// vconsole(1) from the built CLI's own declarations (dist/src: run `npm run build` first): the
// program `vconsole --help` prints, turned into roff by src/commands/man-page.ts.
// Usage: node scripts/packaging/man-page.mjs [OUT]   (stdout without OUT)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../bundle.mjs';

/** The man page's roff text, dated from SOURCE_DATE_EPOCH when set (reproducible packages). */
export async function manPageText() {
  const dist = (file) => import(pathToFileURL(join(projectRoot, 'dist', 'src', file)).href);
  const { buildProgram } = await dist('cli.js');
  const { providerHelp } = await dist('commands/provider-help.js');
  const { manPage } = await dist('commands/man-page.js');
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
  const epoch = process.env.SOURCE_DATE_EPOCH ? Number(process.env.SOURCE_DATE_EPOCH) * 1000 : Date.now();
  const program = buildProgram(await providerHelp(['node', 'vconsole', '--help']));
  return manPage(program, pkg.version, new Date(epoch).toISOString().slice(0, 10));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = await manPageText();
  if (process.argv[2]) writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}
