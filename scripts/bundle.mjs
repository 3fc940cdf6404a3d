// Bundles the CLI into one CommonJS file for the single executable (Node SEA runs exactly one
// CommonJS script and can require only Node's built-in modules).
//
// Commands load their code with dynamic import(); in a single CommonJS bundle esbuild turns those
// into lazy initialisers, so `--version` and `proxy` never evaluate Ink, React or the Kubernetes
// client. Two of Ink's modules use top-level await, which CommonJS cannot express; the plugins
// below replace those spots with synchronous equivalents (see inkWithoutTopLevelAwait and
// yogaLoadedSynchronously).
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildPageAssets } from './build-page.mjs';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles `entry` (default: a stub that runs src/cli.ts's main) into `outfile`.
 * `probeModules: true` records which of Ink, React, yoga and the Kubernetes client were evaluated
 * and prints them as one `vconsole-bundle-probe: [...]` line on stderr at exit (tests only).
 * `seaAssets: {}` (the executable only) moves the bundle's two big lazily used tables out of the
 * JavaScript into files next to `outfile`, read with node:sea when first needed, and fills the
 * object with their SEA asset names and paths (see dataAsSeaAssets).
 * `lazyBuiltinKeys` (the executable only: { 'node:https': [own property names], ... } taken from
 * the Node.js that runs the bundle) defers loading those built-ins to their first use (lazyBuiltins).
 * Resolves to esbuild's metafile.
 */
export async function bundleCli({ outfile, version, entry, probeModules = false, minify = true, seaAssets, lazyBuiltinKeys }) {
  // The browser viewer's pages live in a generated module the bundle must find up to date.
  await buildPageAssets();
  const entryContents = entry ?? "import { main } from './src/cli.ts';\nmain(process.argv);\n";
  const result = await build({
    write: false,
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
    // The probe goes first: it marks files that reactProductionBuilds would otherwise load.
    plugins: [
      ...(probeModules ? [moduleProbe()] : []),
      inkWithoutTopLevelAwait(),
      inkLinesAcrossFrames(),
      yogaLoadedSynchronously(),
      reactProductionBuilds(),
      kubeConfigOnly(),
      ...(seaAssets ? [dataAsSeaAssets(dirname(outfile), seaAssets)] : []),
      ...(lazyBuiltinKeys ? [lazyBuiltins(lazyBuiltinKeys)] : []),
    ],
  });
  const [output] = result.outputFiles;
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, asciiOnly(output.text));
  return result.metafile;
}

/**
 * esbuild turns \`import https from 'node:https'\` into a require() when the importing module is
 * initialised, so every built-in a provider might need loads at start (https, tls, crypto,
 * child_process, ...: 6 MiB of RSS and milliseconds of compiling for \`proxy demo:x\`, which needs
 * none of them). For the built-ins in \`keysByModule\`, ES imports get a stand-in that loads the
 * built-in on its first property access. esbuild's import helper copies the module's property
 * names at initialisation, so the stand-in answers those from the list made by the embedded
 * Node.js (package.mjs) without loading. require() calls in CommonJS dependencies get the same
 * stand-in (commander's require('node:child_process') loaded it for every command).
 */
export function lazyBuiltins(keysByModule) {
  const namespace = 'vconsole-lazy-builtin';
  const bare = (id) => id.replace(/^node:/, '');
  const lazy = new Set(Object.keys(keysByModule).map(bare));
  return {
    name: 'lazy-builtins',
    setup(esbuildApi) {
      esbuildApi.onResolve({ filter: /^(node:)?[a-z_]+$/ }, (args) => {
        if (!['import-statement', 'require-call'].includes(args.kind) || !lazy.has(bare(args.path))) return undefined;
        return { path: bare(args.path), namespace };
      });
      esbuildApi.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `module.exports = ${lazyBuiltinSource}(${JSON.stringify(`node:${args.path}`)}, ${JSON.stringify(keysByModule[`node:${args.path}`])});\n`,
        loader: 'js',
      }));
    },
  };
}

// A Proxy over an empty object: esbuild's __toESM asks for the prototype, __esModule, the own
// property names and their descriptors (enumerable) without needing the module; anything else
// loads it. Descriptors are reported configurable, as Proxy invariants require for properties the
// empty target lacks.
const lazyBuiltinSource = `((id, keys) => {
  let loaded;
  const load = () => (loaded ??= require(id));
  return new Proxy({}, {
    get: (_, key) => (key === '__esModule' ? undefined : load()[key]),
    set: (_, key, value) => ((load()[key] = value), true),
    has: (_, key) => key in load(),
    getPrototypeOf: () => Object.prototype,
    ownKeys: () => keys,
    getOwnPropertyDescriptor: (_, key) => (keys.includes(key) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined),
  });
})`;

/**
 * Every byte of the bundle is held by V8 as source text and mapped from the executable, whether
 * the command runs it or not. Two large pieces are data only one path needs: the browser
 * viewer's scripts and styles (540 KiB) and tr46's Unicode mapping table (260 KiB, loaded with
 * the Kubernetes client). In the executable they become SEA assets, parsed when first required;
 * getRawAsset reads them where the executable is mapped.
 */
function dataAsSeaAssets(dir, assets) {
  const readAsset = (name) => `JSON.parse(Buffer.from(require('node:sea').getRawAsset(${JSON.stringify(name)})).toString('utf8'))`;
  return {
    name: 'data-as-sea-assets',
    setup(esbuildApi) {
      esbuildApi.onLoad({ filter: /[\\/]page-assets\.generated\.ts$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const json = text.slice(text.indexOf('= {') + 2, text.lastIndexOf('}') + 1);
        assets['page-assets.json'] = await writeAsset(dir, 'page-assets.json', JSON.stringify(JSON.parse(json)));
        return { contents: `export const PAGE_ASSETS = ${readAsset('page-assets.json')};\n`, loader: 'js' };
      });
      esbuildApi.onLoad({ filter: /[\\/]node_modules[\\/]tr46[\\/]lib[\\/]mappingTable\.json$/ }, async (args) => {
        assets['tr46-mapping.json'] = await writeAsset(dir, 'tr46-mapping.json', await readFile(args.path, 'utf8'));
        return { contents: `module.exports = ${readAsset('tr46-mapping.json')};\n`, loader: 'js' };
      });
    },
  };
}

async function writeAsset(dir, name, text) {
  const path = join(dir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path, text);
  return path;
}

/**
 * esbuild escapes non-ASCII characters in strings and templates but not in regular expression
 * literals (one in the PowerShell quoting of the open package). A single one makes V8 hold the whole script as
 * a two-byte string: 10.9 MiB of heap for 5.4 MiB of source instead of half that. Inside a
 * regular expression \\uXXXX means the same code unit (an astral character becomes its
 * surrogate pair, as it already is without the u flag and as one code point with it).
 */
export function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * React, react-reconciler and scheduler choose their development or production build at require
 * time from NODE_ENV; the TUI sets NODE_ENV=production before loading them (src/commands/open/open.ts),
 * so the development builds (285 KiB) only weigh on every start. The executable keeps production.
 */
function reactProductionBuilds() {
  return {
    name: 'react-production-builds',
    setup(esbuildApi) {
      esbuildApi.onLoad({ filter: reactEntryFile }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const production = reactProduction(args.path, text);
        return production === text ? undefined : { contents: production, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

const reactEntryFile = /[\\/]node_modules[\\/](react|react-reconciler|scheduler)[\\/][^\\/]+\.js$/;

function reactProduction(path, text) {
  return reactEntryFile.test(path) ? text.replaceAll("process.env.NODE_ENV === 'production'", 'true') : text;
}

/**
 * src/ loads @kubernetes/client-node with const { KubeConfig } = await import(...). In a CommonJS
 * bundle a dynamic import keeps the package's whole namespace, so every generated API and model
 * (2.9 MiB) came along; importing only the names src/ destructures lets esbuild drop the rest
 * (0.9 MiB remain). Any other way of importing the package fails the build rather than losing names.
 */
function kubeConfigOnly() {
  const namespace = 'vconsole-kube-names';
  const pattern = /const \{([^}]*)\} = await import\('@kubernetes\/client-node'\)/g;
  return {
    name: 'kube-config-only',
    setup(esbuildApi) {
      esbuildApi.onResolve({ filter: /^@kubernetes\/client-node$/ }, async (args) => {
        if (args.namespace === namespace) return undefined;
        if (args.kind !== 'dynamic-import') {
          return {
            errors: [
              { text: `bundle: ${args.importer} imports @kubernetes/client-node statically; update kubeConfigOnly in scripts/bundle.mjs` },
            ],
          };
        }
        const text = await readFile(args.importer, 'utf8');
        const uses = [...text.matchAll(pattern)];
        const total = text.split("import('@kubernetes/client-node')").length - 1;
        if (uses.length === 0 || uses.length !== total) {
          return {
            errors: [
              {
                text: `bundle: ${args.importer} imports @kubernetes/client-node other than as \`const { A, B } = await import(...)\`; update kubeConfigOnly in scripts/bundle.mjs`,
              },
            ],
          };
        }
        const names = [
          ...new Set(
            uses.flatMap((use) =>
              use[1]
                .split(',')
                .map((name) => name.trim())
                .filter(Boolean),
            ),
          ),
        ];
        return { path: names.join(','), namespace, pluginData: { resolveDir: args.resolveDir } };
      });
      esbuildApi.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `export { ${args.path} } from '@kubernetes/client-node';\n`,
        loader: 'js',
        resolveDir: args.pluginData.resolveDir,
      }));
    },
  };
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
 * Ink draws every frame from scratch: each line of text is cut into styled characters
 * (ansi-tokenize), 60% of a frame with 200 sessions, though from one frame to the next almost
 * every line is the same. Ink keeps those characters per frame (one Output per frame); this keeps
 * them across frames, in two generations of at most INK_LINES_KEPT lines each (a line unused for
 * two generations is dropped), so a frame with one changed row cuts one line. The cached
 * characters are only read (Output copies references into its grid and styledCharsToString
 * reads them), as within a frame already.
 */
function inkLinesAcrossFrames() {
  return {
    name: 'ink-lines-across-frames',
    setup(esbuildApi) {
      esbuildApi.onLoad({ filter: /[\\/]ink[\\/]build[\\/]output\.js$/ }, async (args) => ({
        contents: inkOutputCachedAcrossFrames(await readFile(args.path, 'utf8'), args.path),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

export function inkOutputCachedAcrossFrames(text, file) {
  const cached = replaceOnce(
    text,
    `        let cached = this.styledChars.get(line);
        if (cached === undefined) {
            cached = styledCharsFromTokens(tokenize(line));
            this.styledChars.set(line, cached);
        }`,
    `        let cached = this.styledChars.get(line);
        if (cached === undefined) {
            cached = styledCharsAcrossFrames(line);
            this.styledChars.set(line, cached);
        }`,
    file,
  );
  return `${cached}
const INK_LINES_KEPT = 300;
let recentLines = new Map();
let olderLines = new Map();
function styledCharsAcrossFrames(line) {
    let chars = recentLines.get(line) ?? olderLines.get(line);
    if (chars === undefined) chars = styledCharsFromTokens(tokenize(line));
    if (recentLines.size >= INK_LINES_KEPT) {
        olderLines = recentLines;
        recentLines = new Map();
    }
    recentLines.set(line, chars);
    return chars;
}
`;
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
      // The loader's own copy of the WebAssembly (124 KiB of base64) is never read once
      // instantiateWasm is given: the bundle keeps only the copy below.
      esbuildApi.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
        const loader = await readFile(args.path, 'utf8');
        const stripped = loader.replace(/(data:application\/octet-stream;base64,)[A-Za-z0-9+/=]+/, '$1');
        if (stripped === loader) throw new Error(`bundle: no embedded WebAssembly in ${args.path}; yoga-layout changed`);
        return { contents: stripped, loader: 'js' };
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
        const text = reactProduction(args.path, await readFile(args.path, 'utf8'));
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
