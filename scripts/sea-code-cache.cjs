// Makes the V8 code cache of the executable's CLI asset (scripts/package.mjs runs it with the
// embedded Node.js): node sea-code-cache.cjs CLI_JS CACHE_OUT -- ARGS...
//
// A cache made right after compiling holds only the top-level code: every function that start-up
// then calls is still compiled on the spot. So this compiles the CLI as scripts/sea-main.cjs does,
// runs it with ARGS (a short command that prints a line, e.g. `proxy demo:x`) and, once that line
// is out, keeps the cache with all the functions compiled so far.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports */
const { writeFileSync, readFileSync } = require('node:fs');
const { Script } = require('node:vm');

const [cliPath, cachePath] = process.argv.slice(2, 4);
const args = process.argv.slice(process.argv.indexOf('--') + 1);
const script = new Script(readFileSync(cliPath, 'latin1'), { filename: cliPath });

const write = process.stdout.write.bind(process.stdout);
let done = false;
process.stdout.write = (chunk, ...rest) => {
  if (!done && String(chunk).includes('\n')) {
    done = true;
    setImmediate(() => {
      writeFileSync(cachePath, script.createCachedData());
      process.exit(0);
    });
  }
  return write(chunk, ...rest);
};
setTimeout(() => {
  process.stderr.write(`sea-code-cache: ${args.join(' ')} printed no line within 60 s\n`);
  process.exit(1);
}, 60_000).unref();

process.argv = [process.execPath, process.execPath, ...args];
script.runInThisContext()(exports, require, module, __filename, __dirname);
