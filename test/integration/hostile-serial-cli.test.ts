/*
 * A serial console that bursts output under `open` (which holds every serial line and shares it
 * among local clients): a client that stops reading is dropped with a line, and with nobody
 * attached vconsole holds the scrollback, not the burst. Memory is the vconsole process's VmHWM.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SCROLLBACK_BYTES } from '../../src/serial/scrollback.js';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const MiB = 1024 * 1024;

function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

/** The most a loopback TCP connection's kernel buffers may hold: receive and send side at their maximum. */
function kernelSocketBuffers(): number {
  const max = (name: string) => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
  return max('tcp_rmem') + max('tcp_wmem');
}

/** A serial console on TCP that, once `burst` is called, prints `size` bytes and then `END`. */
async function burstingConsole() {
  let line: net.Socket | undefined;
  const server = net.createServer((socket) => {
    line = socket;
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    line?.destroy();
    server.close();
  });
  const chunk = Buffer.alloc(MiB, 'x');
  return {
    port: (server.address() as net.AddressInfo).port,
    connected: () => line !== undefined,
    /** Resolves once every byte was taken by vconsole's connection. */
    async burst(size: number): Promise<void> {
      const socket = line!;
      for (let sent = 0; sent < size; sent += chunk.length) {
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
      }
      await new Promise<void>((resolve) => socket.write('END', () => resolve()));
    },
  };
}

async function openSerial(port: number): Promise<{ open: RunningVconsole; port: number }> {
  // The stall limit covers the reading client too, in this busy test process while 256 MiB
  // go to it: 5 s leaves room for a stall there. A client that never reads is dropped at any
  // limit (the default is 10 s).
  const open = startVconsole(['open', `tcp://127.0.0.1:${port}#serial`, '--no-tui', '--viewer', 'none'], {
    VCONSOLE_SERIAL_CLIENT_STALL_MS: '5000',
  });
  cleanup.push(() => open.kill());
  const [line] = await open.jsonLines(1);
  return { open, port: line.port as number };
}

/** A local client of the serial port that reads: its last bytes. */
function reader(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  cleanup.push(() => socket.destroy());
  let total = 0;
  let tail = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    total += chunk.length;
    tail = Buffer.concat([tail, chunk]).subarray(-16);
  });
  socket.on('error', () => undefined);
  return { total: () => total, tail: () => tail.toString('latin1'), socket };
}

describe('open with a serial console that bursts', () => {
  it('holds the line while a client catches up and drops one that stops reading, with a line; memory bounded; the reading client gets every byte', async () => {
    const console_ = await burstingConsole();
    const { open, port } = await openSerial(console_.port);
    await waitFor(console_.connected, 'the serial line');
    const stuck = net.connect(port, '127.0.0.1');
    cleanup.push(() => stuck.destroy());
    stuck.pause();
    stuck.on('error', () => undefined);
    const good = reader(port);
    await open.waitForStderr(/client 2 connected/);
    const before = peakRss(open.process.pid!);
    await console_.burst(256 * MiB);
    await waitFor(() => good.tail().endsWith('END'), 'the whole burst at the reading client', 60_000);
    expect(good.total()).toBe(256 * MiB + 3);
    expect(peakRss(open.process.pid!) - before).toBeLessThan(100 * MiB);
    await open.waitForStderr(/client( from 127\.0\.0\.1:\d+)? dropped: it read nothing for 5 s/);
    await open.waitForStderr(/client 1 disconnected/);
  }, 120_000);

  it('with nobody attached holds the scrollback, not the burst', async () => {
    const console_ = await burstingConsole();
    const { open, port } = await openSerial(console_.port);
    await waitFor(console_.connected, 'the serial line');
    const before = peakRss(open.process.pid!);
    await console_.burst(512 * MiB);
    const late = reader(port);
    await waitFor(() => late.tail().endsWith('END'), 'the scrollback at a client that attaches after the burst', 60_000);
    // The scrollback, and whatever was still on its way when the client attached: the burst is
    // "taken" once it is in the kernel's buffers, whose loopback autotuning may hold up to
    // tcp_rmem's and tcp_wmem's maximum (32 + 4 MiB on Debian) before vconsole reads it.
    expect(late.total()).toBeGreaterThanOrEqual(SCROLLBACK_BYTES);
    expect(late.total()).toBeLessThan(SCROLLBACK_BYTES + kernelSocketBuffers() + 16 * MiB);
    expect(peakRss(open.process.pid!) - before).toBeLessThan(100 * MiB);
  }, 120_000);
});
