// The data path's second fixture (issue 39): the upstream as a relay, the way virt-handler copies
// a console. A TCP console of its own (tcp-backend.ts) sits behind upstream.ts --relay, which
// turns each read into one websocket frame as it came (and each client frame into one write).
// The data-path rows (data-path.ts, and virtctl.ts's data rows) run over it again, their groups
// labelled ", relay upstream"; those without the label ran over the in-process upstream.
import { join } from 'node:path';
import { measureDataPath } from './data-path.js';
import { startProcess, stop, tsxArgs } from './processes.js';
import type { BenchResult } from './report.js';
import { RELAY_DATA_PATH_TARGETS, measureVirtctl, type VirtctlSettings } from './virtctl.js';

export const RELAY_LABEL = 'relay upstream';

/** The TCP console and the relaying upstream in front of it; stop() ends both. */
export async function startRelayUpstream(root: string, cert: string, key: string) {
  const script = (name: string) => join(root, 'scripts', 'bench', name);
  const backend = await startProcess<{ bulk: number; echo: number }>(process.execPath, tsxArgs(script('tcp-backend.ts')), {
    parse: JSON.parse,
  });
  try {
    const { bulk, echo } = backend.lines[0];
    const upstream = await startProcess<{ port: number }>(
      process.execPath,
      tsxArgs(script('upstream.ts'), cert, key, `--relay=${bulk},${echo}`),
      {
        parse: JSON.parse,
      },
    );
    return { port: upstream.lines[0].port, stop: () => Promise.all([stop(upstream.child), stop(backend.child)]) };
  } catch (err) {
    await stop(backend.child);
    throw err;
  }
}

/** The data-path rows asked for (`throughput`, virtctl's `data`), over the relaying upstream. */
export async function measureOverRelay({
  root,
  cli,
  dir,
  cert,
  key,
  settings,
  throughput,
  virtctl,
}: {
  root: string;
  cli: string;
  dir: string;
  cert: string;
  key: string;
  settings: VirtctlSettings & { rounds: number; bulkBytes: number };
  throughput: boolean;
  virtctl: boolean;
}): Promise<BenchResult[]> {
  const relay = await startRelayUpstream(root, cert, key);
  try {
    const rows: BenchResult[] = [];
    if (throughput) rows.push(...(await measureDataPath({ cli, upstreamPort: relay.port, ...settings })));
    if (virtctl)
      rows.push(
        ...(await measureVirtctl({
          root,
          cli,
          upstreamPort: relay.port,
          dir,
          settings,
          rows: ['data'],
          dataTargets: RELAY_DATA_PATH_TARGETS,
        })),
      );
    return rows.map((r) => ({ ...r, group: `${r.group}, ${RELAY_LABEL}` }));
  } finally {
    await relay.stop();
  }
}
