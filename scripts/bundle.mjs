// Bundles the CLI into one CommonJS file for the single executable (Node SEA runs exactly one
// CommonJS script and can require only Node's built-in modules).
//
// Commands load their code with dynamic import(); in a single CommonJS bundle esbuild turns those
// into lazy initialisers, so `--version` and `proxy` never evaluate Ink, React or the Kubernetes
// client. Two of Ink's modules use top-level await, which CommonJS cannot express; the plugins
// below replace those spots with synchronous equivalents (see inkWithoutTopLevelAwait and
// yogaLoadedSynchronously).
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildPageAssets } from './build-page.mjs';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles `entry` (default: a stub that runs src/cli.ts's main) into `outfile`.
 * `probeModules: true` records which of Ink, React, yoga and the Kubernetes client were evaluated
 * and prints them as one `vconsole-bundle-probe: [...]` line on stderr at exit (tests only).
 * Resolves to esbuild's metafile.
 */
export async function bundleCli({ outfile, version, entry, probeModules = false, minify = true }) {
  // The browser viewer's pages live in a generated module the bundle must find up to date.
  await buildPageAssets();
  const entryContents = entry ?? "import { main } from './src/cli.ts';\nmain(process.argv);\n";
  const result = await build({
    stdin: { contents: entryContents, resolveDir: projectRoot, sourcefile: 'vconsole-sea-entry.ts', loader: 'ts' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify,
    keepNames: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    // Optional native speed-ups of ws; absent here, and SEA could not load them anyway.
    external: ['bufferutil', 'utf-8-validate'],
    define: {
      __VCONSOLE_VERSION__: JSON.stringify(version),
      'process.env.VCONSOLE_VERSION': JSON.stringify(version),
      'import.meta.url': '__vconsole_import_meta_url',
    },
    // In a SEA main script __filename is the executable, so createRequire(import.meta.url) can
    // load built-ins such as node:sea.
    banner: { js: [importMetaUrlShim, punycodeWarningFilter].join('\n') },
    plugins: [inkWithoutTopLevelAwait(), yogaLoadedSynchronously(), ...(probeModules ? [moduleProbe()] : [])],
  });
  return result.metafile;
}

const importMetaUrlShim = 'var __vconsole_import_meta_url = require("node:url").pathToFileURL(__filename).href;';

// node-fetch's tr46 (Kubernetes client) requires the built-in punycode module. Node stays quiet
// about that deprecation for code under node_modules, which bundled code no longer is; keep the
// executable as quiet as the npm package by dropping exactly that warning.
const punycodeWarningFilter = `(() => {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const code = typeof rest[0] === 'object' && rest[0] !== null ? rest[0].code : rest[1];
    if (code === 'DEP0040') return;
    return emitWarning.call(process, warning, ...rest);
  };
})();`;

/** Replaces `needle` in `text`, failing the build if it is not there exactly once. */
function replaceOnce(text, needle, replacement, file) {
  const at = text.indexOf(needle);
  if (at < 0 || text.indexOf(needle, at + 1) >= 0) {
    throw new Error(`bundle: expected exactly one "${needle}" in ${file}; Ink changed, update scripts/bundle.mjs`);
  }
  return text.slice(0, at) + replacement + text.slice(at + needle.length);
}

/**
 * Ink's reconciler awaits React DevTools and its own package.json at top level, both only when
 * DEV=true. The executable drops that developer hook: with DEV=true it behaves as without.
 */
function inkWithoutTopLevelAwait() {
  return {
    name: 'ink-without-top-level-await',
    setup(esbuildApi) {
      esbuildApi.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        text = replaceOnce(text, "await import('./devtools.js');", 'void 0;', args.path);
        text = replaceOnce(text, '? await loadPackageJson()', '? { name: undefined, version: undefined }', args.path);
        return { contents: text, loader: 'js' };
      });
    },
  };
}

/**
 * yoga-layout's default export awaits its WebAssembly at top level. Emscripten lets the embedder
 * instantiate the module itself; instantiating synchronously (allowed in Node for any size) makes
 * the whole runtime initialise before the loader returns, so the module can export Yoga directly.
 */
function yogaLoadedSynchronously() {
  const namespace = 'vconsole-yoga';
  return {
    name: 'yoga-loaded-synchronously',
    setup(esbuildApi) {
      esbuildApi.onResolve({ filter: /^yoga-layout$/ }, async (args) => {
        const load = await esbuildApi.resolve('yoga-layout/load', { kind: 'import-statement', resolveDir: args.resolveDir });
        if (load.errors.length > 0) return { errors: load.errors };
        return { path: dirname(load.path), namespace };
      });
      esbuildApi.onLoad({ filter: /.*/, namespace }, async (args) => {
        const srcDir = args.path; // yoga-layout/dist/src
        const loaderPath = join(srcDir, '..', 'binaries', 'yoga-wasm-base64-esm.js');
        const loader = await readFile(loaderPath, 'utf8');
        const wasm = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(loader);
        if (!wasm) throw new Error(`bundle: no embedded WebAssembly in ${loaderPath}; yoga-layout changed`);
        const contents = `
import loadYogaRuntime from ${JSON.stringify(loaderPath)};
import wrapAssembly from ${JSON.stringify(join(srcDir, 'wrapAssembly.js'))};
export * from ${JSON.stringify(join(srcDir, 'generated', 'YGEnums.js'))};
const wasmBytes = Buffer.from(${JSON.stringify(wasm[1])}, 'base64');
const runtime = {
  instantiateWasm(imports, receiveInstance) {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasmBytes), imports);
    receiveInstance(instance);
    return instance.exports;
  },
};
loadYogaRuntime(runtime);
if (!runtime.calledRun) throw new Error('yoga-layout did not initialise synchronously');
export default wrapAssembly(runtime);
`;
        return { contents, loader: 'js', resolveDir: srcDir };
      });
    },
  };
}

/** Test-only: marks the first evaluation of the packages that the lazy commands must not pay for. */
function moduleProbe() {
  const watched = [
    ['ink', /[\\/]node_modules[\\/]ink[\\/]build[\\/]index\.js$/],
    ['react', /[\\/]node_modules[\\/]react[\\/]index\.js$/],
    ['@kubernetes/client-node', /[\\/]node_modules[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]index\.js$/],
  ];
  return {
    name: 'module-probe',
    setup(esbuildApi) {
      esbuildApi.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, async (args) => {
        const hit = watched.find(([, pattern]) => pattern.test(args.path));
        if (!hit) return undefined;
        const text = await readFile(args.path, 'utf8');
        const mark = `;(globalThis.__vconsoleEvaluated ??= []).push(${JSON.stringify(hit[0])});\n`;
        return { contents: mark + text, loader: 'js', resolveDir: dirname(args.path) };
      });
      esbuildApi.initialOptions.banner = {
        js:
          `${esbuildApi.initialOptions.banner?.js ?? ''}\n` +
          'process.on("exit", () => process.stderr.write("vconsole-bundle-probe: " + JSON.stringify(globalThis.__vconsoleEvaluated ?? []) + "\\n"));',
      };
    },
  };
}

// CLI: node scripts/bundle.mjs [--outfile FILE] [--entry FILE] [--probe]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { outfile: { type: 'string' }, entry: { type: 'string' }, probe: { type: 'boolean', default: false } },
  });
  const pkg = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8'));
  const outfile = resolve(values.outfile ?? join(projectRoot, 'dist', 'sea', 'vconsole.cjs'));
  const entry = values.entry === undefined ? undefined : await readFile(values.entry, 'utf8');
  await bundleCli({ outfile, version: pkg.version, entry, probeModules: values.probe });
  process.stdout.write(`bundled ${outfile}\n`);
}
