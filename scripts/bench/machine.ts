// What machine a bench run measured: the figures of a run mean little without it (a data path
// over TLS depends on the CPU's crypto instructions, everything on the cores and the load that
// other work put on them). Read from /proc on Linux, from os.cpus() elsewhere.
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type } from 'node:os';

/** The /proc/cpuinfo flags that decide how fast TLS (AES-GCM, ChaCha20, SHA) runs. */
const CRYPTO_FLAGS = ['aes', 'vaes', 'pclmulqdq', 'vpclmulqdq', 'avx2', 'sha_ni'];

export interface Machine {
  cpuModel: string;
  /** The crypto-relevant flags present, in CRYPTO_FLAGS order, then the AVX-512 ones collapsed. */
  cryptoFlags: string[];
  cores: number;
  memoryBytes: number;
  kernel: string;
  node: string;
  platform: string;
}

/** What `cpuinfo` (the text of /proc/cpuinfo, or undefined off Linux) and os say of this machine. */
export function describeMachine({
  cpuinfo,
  cpuModels,
  memoryBytes,
  kernel,
  node,
  platform,
}: {
  cpuinfo: string | undefined;
  cpuModels: string[];
  memoryBytes: number;
  kernel: string;
  node: string;
  platform: string;
}): Machine {
  const field = (name: string) => (cpuinfo ? new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(cpuinfo)?.[1]?.trim() : undefined);
  // x86 says "flags", arm64 "Features".
  const flags = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/).filter(Boolean));
  const avx512 = [...flags]
    .filter((f) => f.startsWith('avx512'))
    .map((f) => f.slice('avx512'.length).replace(/^_/, ''))
    .sort();
  return {
    cpuModel: field('model name') ?? cpuModels[0] ?? 'unknown CPU',
    cryptoFlags: [
      ...CRYPTO_FLAGS.filter((f) => flags.has(f)),
      ...(avx512.length ? [`avx512 (${avx512.join(' ')})`] : []),
      // arm64: its AES and SHA instructions.
      ...['pmull', 'sha1', 'sha2'].filter((f) => flags.has(f)),
    ],
    cores: cpuModels.length,
    memoryBytes,
    kernel,
    node,
    platform,
  };
}

/** This machine. */
export function thisMachine(): Machine {
  let cpuinfo: string | undefined;
  try {
    cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    cpuinfo = undefined; // not Linux: os.cpus() has the model, no flags
  }
  return describeMachine({
    cpuinfo,
    cpuModels: cpus().map((c) => c.model),
    memoryBytes: totalmem(),
    kernel: `${type()} ${release()}`,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  });
}

const load = (l: readonly number[]) => l.map((v) => v.toFixed(2)).join(' ');

/** One line for the report's header and the doc's table: the machine and the load it saw. */
export function machineLine(machine: Machine, loadAtStart: readonly number[], loadAtEnd: readonly number[] = loadavg()): string {
  const flags = machine.cryptoFlags.length ? machine.cryptoFlags.join(' ') : 'no AES/SHA/AVX flags seen';
  return [
    `${machine.cores} CPUs (${machine.cpuModel}; ${flags})`,
    `${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB memory`,
    `${machine.kernel}`,
    `Node.js ${machine.node}, ${machine.platform}`,
    `load average ${load(loadAtStart)} at start, ${load(loadAtEnd)} at end`,
  ].join(', ');
}
