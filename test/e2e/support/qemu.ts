import { join } from 'node:path';
import { countLit } from './images.js';
import { awaitSocketFile, canConnect, freeLoopbackPort } from './net.js';
import { pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { takeVncSnapshot, type VncSnapshot } from './vncsnapshot.js';

export interface QemuVm {
  name: string;
  /** QEMU's VNC unix socket, as virt-launcher sets it up (KubeVirt's `virt-vnc`). */
  socketPath: string;
  /** QEMU's second VNC server on 127.0.0.1: the tcp:// target and the reference for pictures. */
  tcpPort: number;
  process: RunningProcess;
  /** QEMU's own framebuffer once the BIOS has finished printing, taken straight from QEMU. */
  reference: VncSnapshot;
}

/** What the BIOS screen of a disk-less VM holds at least, in lit pixels (SeaBIOS prints ~4500). */
const MIN_BIOS_TEXT_PIXELS = 1_500;
/** The blinking text cursor is the only thing that moves on a settled BIOS screen. */
const CURSOR_PIXELS = 64;

/**
 * The PC every QEMU of the e2e tests is: no accelerator (runs anywhere), 64 MiB, no default
 * devices but a standard VGA, no window. Each test adds how its console is reached.
 */
export function qemuPcArgs(name: string): string[] {
  return ['-name', name, '-machine', 'accel=tcg', '-m', '64', '-nodefaults', '-vga', 'std', '-display', 'none'];
}

/**
 * The QEMU command line: a disk-less PC whose SeaBIOS prints "Booting from Hard Disk...",
 * "No bootable device." on a 720x400 VGA text screen. VNC is served twice: on a unix socket
 * (`-vnc unix:PATH`, how virt-launcher runs QEMU, the socket virt-handler dials) and on
 * 127.0.0.1:5900+DISPLAY (QEMU's own TCP VNC server, like a hypervisor's 5900+N).
 * `-display none` rather than `-nographic`: the latter also wires a serial console and monitor
 * to stdio, which a test neither needs nor may block on.
 */
export function qemuArgs(name: string, socketPath: string, display: number): string[] {
  return [...qemuPcArgs(name), '-vnc', `unix:${socketPath}`, '-vnc', `127.0.0.1:${display},id=tcp`];
}

/**
 * Starts a QEMU VM in `dir` and resolves once its BIOS screen has settled (two pictures taken
 * apart show the same text). QEMU picks no free port by itself, so an OS-given port is handed
 * over; if another program grabbed it meanwhile QEMU exits and another port is tried.
 */
export async function startQemuVm(lab: ProcessLab, name: string, dir: string): Promise<QemuVm> {
  const socketPath = join(dir, `${name}.vnc.sock`);
  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const tcpPort = await freeLoopbackPort();
    if (tcpPort <= 5900) continue;
    const qemu = lab.start(`qemu ${name}`, 'qemu-system-x86_64', qemuArgs(name, socketPath, tcpPort - 5900), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const listening = await pollFor(
      async () => {
        if (qemu.hasExited()) return false;
        return (await canConnect(tcpPort)) ? true : undefined;
      },
      { what: `QEMU ${name} listening on 127.0.0.1:${tcpPort}`, timeoutMs: 60_000, detail: () => qemu.describe() },
    );
    if (!listening) {
      lastFailure = qemu.describe();
      continue;
    }
    await awaitSocketFile(socketPath, `QEMU ${name}'s VNC socket ${socketPath}`, 30_000, () => qemu.describe());
    const reference = await awaitSettledBiosScreen(tcpPort, dir, name);
    return { name, socketPath, tcpPort, process: qemu, reference };
  }
  throw new Error(`QEMU ${name} did not start:\n${lastFailure}`);
}

/** Polls QEMU's framebuffer until the BIOS text is there and has stopped changing. */
async function awaitSettledBiosScreen(port: number, dir: string, name: string): Promise<VncSnapshot> {
  let previous: { snapshot: VncSnapshot; lit: number; at: number } | undefined;
  return pollFor(
    async () => {
      const snapshot = await takeVncSnapshot(port, dir);
      const lit = countLit(snapshot.image);
      const settled = previous !== undefined && Date.now() - previous.at >= 1_000 && Math.abs(previous.lit - lit) <= CURSOR_PIXELS;
      if (settled && lit >= MIN_BIOS_TEXT_PIXELS) return snapshot;
      if (!previous || Math.abs(previous.lit - lit) > CURSOR_PIXELS) previous = { snapshot, lit, at: Date.now() };
      return undefined;
    },
    { what: `QEMU ${name}'s BIOS text on screen`, timeoutMs: 90_000, intervalMs: 250 },
  );
}

export interface QemuSerialVm {
  name: string;
  /** QEMU's serial port as a unix socket (KubeVirt's `virt-serial0`). */
  serialPath: string;
  process: RunningProcess;
}

/**
 * A disk-less PC with no display whose only console is its serial line: SeaBIOS offers its boot
 * menu there and waits 30 s for ESC, answering `Select boot device:` (it idles meanwhile). What
 * it printed before anyone connected is gone (`wait=off`), so tests prove both directions by
 * sending ESC and reading the menu. `-nographic` is what makes QEMU tell SeaBIOS to use the
 * serial port; `-nodefaults` keeps the monitor off stdio.
 */
export function qemuSerialArgs(name: string, serialPath: string): string[] {
  return [
    '-name',
    name,
    '-machine',
    'accel=tcg',
    '-m',
    '64',
    '-nographic',
    '-nodefaults',
    '-serial',
    `unix:${serialPath},server=on,wait=off`,
    '-boot',
    'menu=on,splash-time=30000',
  ];
}

/** Starts a serial-only QEMU VM in `dir`; resolves once its serial socket exists. */
export async function startQemuSerialVm(lab: ProcessLab, name: string, dir: string): Promise<QemuSerialVm> {
  const serialPath = join(dir, `${name}.serial.sock`);
  const qemu = lab.start(`qemu ${name} (serial)`, 'qemu-system-x86_64', qemuSerialArgs(name, serialPath), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await awaitSocketFile(serialPath, `QEMU ${name}'s serial socket ${serialPath}`, 30_000, () => qemu.describe());
  return { name, serialPath, process: qemu };
}
