// The KubeVirt fixture API server as a process the bench can start: the TypeScript fixture
// (test/fixtures/kubevirt-api.ts, the one the tests use) bundled by esbuild into dist/bench/
// (inside the repository so its packages resolve from node_modules), run by kubevirt-api.mjs.
import { join } from 'node:path';
import { build } from 'esbuild';
import { startProcess } from './processes.mjs';

/** Builds the fixture and starts it; resolves with its process and what kubevirt-api.mjs printed. */
export async function startKubevirtApi(root) {
  const bundle = join(root, 'dist', 'bench', 'kubevirt-fixture.mjs');
  await build({
    entryPoints: [join(root, 'test', 'fixtures', 'kubevirt-api.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'error',
  });
  const api = await startProcess(process.execPath, [join(root, 'scripts', 'bench', 'kubevirt-api.mjs'), bundle], { parse: JSON.parse, timeoutMs: 60_000 });
  return { child: api.child, ...api.lines[0] };
}
