import { join } from 'node:path';
import { awaitSocketFile, canConnect, freeLoopbackPort } from './net.js';
import { pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { Qmp } from './qmp.js';

export interface QemuSpiceVm {
  name: string;
  /** QEMU's SPICE server on 127.0.0.1, no ticket (password). */
  spicePort: number;
  /** QEMU's control socket: screendumps of what the VM shows, resets. */
  qmp: Qmp;
  process: RunningProcess;
}

/** SeaBIOS waits this long at `Press ESC for boot menu.` (QEMU's largest splash-time, in ms). */
export const BOOT_PROMPT_MS = 65_535;

/**
 * A disk-less PC with a QXL card served over SPICE (what an OpenStack compute node's libvirt
 * sets up for `spice-html5`): SeaBIOS prints its banner and `Press ESC for boot menu.` in VGA
 * text mode and waits BOOT_PROMPT_MS for ESC, which opens `Select boot device:`.
 */
export function qemuSpiceArgs(name: string, spicePort: number, qmpPath: string): string[] {
  return [
    '-name',
    name,
    '-machine',
    'accel=tcg',
    '-m',
    '64',
    '-nodefaults',
    '-vga',
    'qxl',
    '-display',
    'none',
    '-spice',
    `port=${spicePort},addr=127.0.0.1,disable-ticketing=on`,
    '-qmp',
    `unix:${qmpPath},server=on,wait=off`,
    '-boot',
    `menu=on,splash-time=${BOOT_PROMPT_MS}`,
  ];
}

/**
 * Starts a SPICE VM in `dir` and resolves once its SPICE port accepts connections and QMP
 * answers. QEMU picks no free port by itself: an OS-given one is handed over, and another tried
 * if something took it meanwhile.
 */
export async function startQemuSpiceVm(lab: ProcessLab, name: string, dir: string): Promise<QemuSpiceVm> {
  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const spicePort = await freeLoopbackPort();
    const qmpPath = join(dir, `${name}-${attempt}.qmp.sock`);
    const qemu = lab.start(`qemu ${name} (spice)`, 'qemu-system-x86_64', qemuSpiceArgs(name, spicePort, qmpPath), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const listening = await pollFor(
      async () => {
        if (qemu.hasExited()) return false;
        return (await canConnect(spicePort)) ? true : undefined;
      },
      { what: `QEMU ${name}'s SPICE server on 127.0.0.1:${spicePort}`, timeoutMs: 60_000, detail: () => qemu.describe() },
    );
    if (!listening) {
      lastFailure = qemu.describe();
      continue;
    }
    await awaitSocketFile(qmpPath, `QEMU ${name}'s QMP socket`, 30_000, () => qemu.describe());
    return { name, spicePort, qmp: await Qmp.connect(qmpPath), process: qemu };
  }
  throw new Error(`QEMU ${name} did not start:\n${lastFailure}`);
}
