// One console's flood beside a healthy one in one `vconsole proxy --share` (issue 36, item 5):
// how long a new viewer of the healthy console waits, from its connection to its first whole
// picture, while the other console floods unrequested 1x1 updates (flooding-console.ts), against
// the same proxy with the healthy console alone. The healthy console is demo:vm-a.
import { fileURLToPath } from 'node:url';
import { connectClient, ENCODING } from './rfb-client.js';
import { sleep, startProcess, stop, tsxArgs } from './processes.js';
import { quantile, result, type BenchResult } from './report.js';

const floodScript = fileURLToPath(new URL('./flooding-console.ts', import.meta.url));
/** A viewer whose first picture has not come by then is counted unanswered. */
const ANSWER_WITHIN_MS = 5000;
const HEALTHY = 'demo:vm-a';

/** Connect to first whole picture of one new viewer, in ms; Infinity when it did not come in time. */
async function firstPicture(port: number): Promise<number> {
  const began = performance.now();
  let picture: () => void = () => undefined;
  const pictured = new Promise<void>((resolve) => (picture = resolve));
  const viewer = await Promise.race([
    connectClient(port, { encoding: ENCODING.zrle, onUpdate: () => picture() }),
    sleep(ANSWER_WITHIN_MS).then(() => undefined),
  ]);
  if (!viewer) return Infinity;
  try {
    const left = ANSWER_WITHIN_MS - (performance.now() - began);
    const came = await Promise.race([pictured.then(() => true), sleep(Math.max(0, left)).then(() => false)]);
    return came ? performance.now() - began : Infinity;
  } finally {
    viewer.close();
  }
}

/** `rounds` new viewers of the healthy console, one after the other, in a proxy of `targets`. */
async function viewersOfHealthy(cli: string, targets: string[], rounds: number): Promise<number[]> {
  const proxy = await startProcess<{ target: string; port: number }>(process.execPath, [cli, 'proxy', '--share', ...targets], {
    lines: targets.length,
    parse: JSON.parse,
    timeoutMs: 60_000,
  });
  try {
    const port = proxy.lines.find((line) => line.target === HEALTHY)?.port;
    if (!port) throw new Error(`no port for ${HEALTHY}`);
    // The flood under way, well past the sockets' buffers.
    await sleep(2000);
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) times.push(await firstPicture(port));
    return times;
  } finally {
    await stop(proxy.child);
  }
}

export async function measureFairness({ cli, rounds }: { cli: string; rounds: number }): Promise<BenchResult[]> {
  const alone = await viewersOfHealthy(cli, [HEALTHY], rounds);
  const flood = await startProcess<{ port: number }>(process.execPath, tsxArgs(floodScript), { parse: JSON.parse });
  let flooded: number[];
  try {
    flooded = await viewersOfHealthy(cli, [`tcp://127.0.0.1:${flood.lines[0].port}`, HEALTHY], rounds);
  } finally {
    await stop(flood.child);
  }
  const p50 = (times: number[]) => quantile(times, 0.5);
  const unanswered = flooded.filter((ms) => ms === Infinity).length;
  const what = `new viewer of a healthy console: connect to first picture p50`;
  return [
    result({ group: 'fairness', name: `${what}, alone`, value: p50(alone), unit: 'ms', digits: 0 }),
    result({
      group: 'fairness',
      name: `${what}, another console flooding unrequested 1x1 updates`,
      value: p50(flooded),
      unit: 'ms',
      digits: 0,
      ratio: p50(flooded) / p50(alone),
      reference: `alone ${p50(alone).toFixed(0)} ms; p90 ${quantile(flooded, 0.9).toFixed(0)} ms; ${unanswered} of ${rounds} unanswered in ${ANSWER_WITHIN_MS / 1000} s`,
      target: '<= 100 ms',
      pass: p50(flooded) <= 100 && unanswered === 0,
    }),
  ];
}
