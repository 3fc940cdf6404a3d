#!/usr/bin/env node
// Thin launcher: everything lives in the compiled CLI. A lone `--version` is answered here from
// package.json (the file the CLI reads it from), so that probe does not pay ~25 ms of CPU for
// loading the command parser; see docs/BENCHMARKS.md. A Tab (`complete -- WORDS`, and the
// refresher it starts) goes to the completion modules before the command line loads: it answers
// from a cache (src/commands/completion-tab.ts). Any doubt: the CLI answers.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const version = args.length === 1 && (args[0] === '--version' || args[0] === '-V') ? readVersion() : undefined;
if (version) {
  process.stdout.write(`${version}\n`);
} else if ((args[0] === 'complete' && args[1] === '--') || args[0] === '__complete-refresh') {
  const { completionMain } = await import('../dist/src/commands/completion-tab.js');
  await completionMain(args, async () => (await import('../dist/src/cli.js')).buildProgram(undefined, false));
} else {
  const { main } = await import('../dist/src/cli.js');
  main(process.argv);
}

function readVersion() {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return undefined;
  }
}
