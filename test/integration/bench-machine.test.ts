// The bench's machine description and its busy loop (scripts/bench/machine.ts, busy-loop.ts):
// what a report says of its machine, and that the load `--busy` adds starts, stops and never
// outlives the bench.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { busyLoopProgram, startBusyLoop, type BusyLoop } from '../../scripts/bench/busy-loop.js';
import { describeMachine, machineLine } from '../../scripts/bench/machine.js';
import { cpuSeconds } from '../../scripts/bench/processes.js';
import { pollFor } from '../e2e/support/poll.js';

const XEON_CPUINFO = `processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz
flags\t\t: fpu sse2 pclmulqdq aes avx avx2 sha_ni avx512f avx512dq avx512_vnni avx512bw vaes vpclmulqdq

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz
`;

const base = { memoryBytes: 8 * 2 ** 30, kernel: 'Linux 6.1.0', node: 'v20.20.2', platform: 'linux-x64' };

describe('the machine a bench report names', () => {
  it('gives the CPU model, the crypto flags, cores, memory, kernel, Node.js and the load at start and end', () => {
    const machine = describeMachine({ ...base, cpuinfo: XEON_CPUINFO, cpuModels: ['x', 'x'] });
    expect(machine.cpuModel).toBe('Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz');
    expect(machine.cryptoFlags).toEqual(['aes', 'vaes', 'pclmulqdq', 'vpclmulqdq', 'avx2', 'sha_ni', 'avx512 (bw dq f vnni)']);
    expect(machineLine(machine, [0.5, 0.25, 0], [1.75, 0.5, 0.125])).toBe(
      '2 CPUs (Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz; aes vaes pclmulqdq vpclmulqdq avx2 sha_ni avx512 (bw dq f vnni)), ' +
        '8.0 GiB memory, Linux 6.1.0, Node.js v20.20.2, linux-x64, load average 0.50 0.25 0.00 at start, 1.75 0.50 0.13 at end',
    );
  });

  it('falls back to what os.cpus() says where there is no /proc/cpuinfo, and says no flags were seen', () => {
    const machine = describeMachine({ ...base, cpuinfo: undefined, cpuModels: ['Apple M2', 'Apple M2', 'Apple M2', 'Apple M2'] });
    expect(machineLine(machine, [1, 1, 1], [1, 1, 1])).toMatch(/^4 CPUs \(Apple M2; no AES\/SHA\/AVX flags seen\), /);
  });

  it("reads arm64's Features line", () => {
    const machine = describeMachine({
      ...base,
      cpuinfo: 'processor\t: 0\nFeatures\t: fp asimd aes pmull sha1 sha2 crc32\n',
      cpuModels: ['Neoverse'],
    });
    expect(machine).toMatchObject({ cpuModel: 'Neoverse', cryptoFlags: ['aes', 'pmull', 'sha1', 'sha2'] });
  });
});

/** Whether the process `pid` is gone (or a zombie nobody has reaped yet: it runs no more). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe.skipIf(process.platform !== 'linux')('the busy loop of --busy', () => {
  let loop: BusyLoop | undefined;
  afterEach(async () => {
    await loop?.stop();
    loop = undefined;
  });

  it('spins once started and is gone once stopped', async () => {
    loop = startBusyLoop(120);
    const { pid } = loop;
    await pollFor(() => (cpuSeconds(pid) >= 0.2 ? true : undefined), { what: 'the busy loop to spend CPU time' });
    await loop.stop();
    expect(gone(pid)).toBe(true);
  });

  it('stops by itself when the bench that started it is killed (no orphan spinning)', async () => {
    // A stand-in bench: starts the loop as the bench does, says its pid, then is SIGKILLed (on a
    // loaded machine often before the loop's first line has run).
    const bench = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(busyLoopProgram(120))}], { stdio: 'ignore', env: { ...process.env, BUSY_LOOP_PARENT: String(process.pid) } });` +
          `console.log(c.pid); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    bench.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const pid = await pollFor(() => (out.includes('\n') ? Number(out.trim()) : undefined), {
      what: 'the stand-in bench to start its loop',
    });
    await pollFor(() => (cpuSeconds(pid) > 0 ? true : undefined), { what: 'the orphan-to-be to spin' });
    bench.kill('SIGKILL');
    await pollFor(() => (gone(pid) ? true : undefined), { what: `the busy loop ${pid} to end after its parent did` });
  });

  it('ends by itself after its bound', async () => {
    loop = startBusyLoop(0.2);
    const exited = new Promise<number | null>((resolve) => loop!.child.once('exit', resolve));
    expect(await exited).toBe(0);
  });
});
