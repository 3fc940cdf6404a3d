// The single executable's main script (Node SEA), bundled by scripts/package.mjs with the version
// compiled in. The CLI itself is a SEA asset (scripts/bundle.mjs's bundle wrapped as a CommonJS
// module function), so asking for the version compiles nothing: Node's own start-up is the whole
// cost. Anything else compiles the CLI with the V8 code cache made at packaging time, when there
// is one for this Node.js build, and runs it as the module it was bundled as.
'use strict';
// A SEA main script is CommonJS and reaches Node's built-ins only through require().
/* eslint-disable @typescript-eslint/no-require-imports */

/* global __VCONSOLE_VERSION__ */
const args = process.argv.slice(2);
const asksVersion = args.length === 1 && ['--version', '-V', 'version'].includes(args[0]);
if (asksVersion) {
  printVersion(`${__VCONSOLE_VERSION__}\n`);
} else {
  runCli();
}

/**
 * Writes to fd 1 directly: touching process.stdout would set up a stream (net, tty) for six
 * bytes, 2 MiB of RSS. A reader that went away is ignored, as the CLI does; a non-blocking pipe
 * that is full gets the stream after all.
 */
function printVersion(line) {
  try {
    require('node:fs').writeSync(1, line);
  } catch (err) {
    if (err.code === 'EAGAIN') process.stdout.write(line);
    else if (err.code !== 'EPIPE') throw err;
  }
}

function runCli() {
  const { getAsset, getRawAsset } = require('node:sea');
  const { Script } = require('node:vm');
  // getRawAsset is the asset where the executable is mapped, not a copy. The bundle is ASCII
  // (scripts/bundle.mjs), so reading it as Latin-1 is a plain copy into a one-byte string,
  // several times quicker than UTF-8 decoding the 2.4 MB.
  const source = Buffer.from(getRawAsset('cli.js')).latin1Slice();
  const cachedData = codeCache(getAsset);
  const script = new Script(source, { filename: __filename, cachedData });
  if (process.env.VCONSOLE_STARTUP_DEBUG) {
    const state = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'absent';
    process.stderr.write(`vconsole-startup: code cache ${state}\n`);
  }
  script.runInThisContext()(exports, require, module, __filename, __dirname);
}

/** The code cache, absent from targets whose Node.js build did not make it. */
function codeCache(getAsset) {
  try {
    return Buffer.from(getAsset('cli.cache'));
  } catch {
    return undefined;
  }
}
