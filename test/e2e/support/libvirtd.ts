import { readFile } from 'node:fs/promises';
import { pollFor } from './poll.js';
import { runProgram, type ProcessLab } from './processes.js';

/** The libvirtd every libvirt suite talks to, as root. */
export const LIBVIRT_URI = 'qemu:///system';

export function virsh(...args: string[]) {
  return runProgram('virsh', ['-c', LIBVIRT_URI, ...args], { timeoutMs: 60_000 });
}

/**
 * libvirtd and virtlogd as root without systemd, when they are not running yet; the lab ends
 * the ones it started (by the pid files they write), and leaves running ones alone: a daemon
 * that would not start (one runs already) is not adopted, its pid file being the other's.
 */
export async function ensureLibvirtd(lab: ProcessLab): Promise<void> {
  if ((await virsh('version')).code === 0) return;
  for (const daemon of ['virtlogd', 'libvirtd']) {
    const started = await runProgram(daemon, ['-d'], { timeoutMs: 30_000 });
    if (started.code !== 0) continue;
    const pid = Number((await readFile(`/run/${daemon}.pid`, 'utf8').catch(() => '')).trim());
    lab.adopt(pid, daemon);
  }
  await pollFor(async () => ((await virsh('version')).code === 0 ? true : undefined), { what: 'libvirtd to answer', timeoutMs: 60_000 });
}

/** Text for an XML attribute in single quotes. */
export const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/'/g, '&apos;').replace(/</g, '&lt;');

/**
 * A small TCG domain's XML (VGA, no balloon) with the given graphics element(s) and memory: the
 * domain the libvirt e2e files define, each with the console it tests.
 */
export function tcgDomainXml(name: string, graphics: string, memoryMiB = 32): string {
  return `<domain type='qemu'>
  <name>${xmlText(name)}</name>
  <memory unit='MiB'>${memoryMiB}</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    ${graphics}
    <video><model type='vga'/></video>
    <memballoon model='none'/>
  </devices>
</domain>`;
}
