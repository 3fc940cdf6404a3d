// The KubeVirt fixture API server as a process the bench can start: kubevirt-api.ts, which
// imports the TypeScript fixture the tests use (test/fixtures/kubevirt-api.ts), run with tsx.
import { join } from 'node:path';
import { startProcess, tsxArgs } from './processes.js';

/** What kubevirt-api.ts prints once it listens. */
export interface KubevirtApi {
  url: string;
  kubeconfig: string;
  namespace: string;
  vm: string;
  width: number;
  height: number;
  colour: [number, number, number];
}

/**
 * Starts the fixture; resolves with its process and what kubevirt-api.ts printed. With `many`:
 * VMIs bench/vm-1 .. vm-COUNT, each console of that size.
 */
export async function startKubevirtApi(root: string, many?: { count: number; width: number; height: number }) {
  const args = many ? [many.count, many.width, many.height].map(String) : [];
  const api = await startProcess<KubevirtApi>(process.execPath, tsxArgs(join(root, 'scripts', 'bench', 'kubevirt-api.ts'), ...args), {
    parse: JSON.parse,
    timeoutMs: 60_000,
  });
  return { child: api.child, ...api.lines[0] };
}
