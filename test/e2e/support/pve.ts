import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { startPveFixture, type FixtureGuest, type PveFixture } from '../../fixtures/pve-api.js';
import { countLit } from './images.js';
import { canConnect, freeLoopbackPort } from './net.js';
import { pollFor } from './poll.js';
import type { ProcessLab } from './processes.js';
import { Qmp } from './qmp.js';
import { qemuPcArgs, startQemuSerialVm } from './qemu.js';

export const PVE_TOKEN = 'vconsole@pve!e2e=4f7b1c0e-2d7a-4b9e-8c3f-9a6d5e1b2c3d';

export interface PveLab {
  fixture: PveFixture;
  /** QMP of VM 100 (`web-1`): its screendump is the picture every screenshot must equal. */
  qmp: Qmp;
  /** The flags that point vconsole at the fixture with the token. */
  args: string[];
  /** Starts VM 101 (`serial-1`), whose SeaBIOS offers its boot menu on the serial line for 30 s. */
  startSerialVm(): Promise<void>;
}

/**
 * The Proxmox VE fixture in front of real QEMUs, as a node runs them: VM 100's VNC server wants
 * a password (`-vnc ...,password=on`), set by QMP change-vnc-password on each vncproxy (as
 * `qm vncproxy` does with the ticket's password); VM 101's serial line is what termproxy's
 * `qm terminal` reaches.
 */
export async function startPveLab(lab: ProcessLab, dir: string): Promise<PveLab> {
  const qmpPath = join(dir, 'web-1.qmp.sock');
  const vncPort = await pollFor(
    async () => {
      const port = await freeLoopbackPort();
      return port > 5900 ? port : undefined;
    },
    { what: 'a free port above 5900', timeoutMs: 10_000 },
  );
  const qemu = lab.start('qemu web-1', 'qemu-system-x86_64', [
    ...qemuPcArgs('web-1'),
    '-vnc',
    `127.0.0.1:${vncPort - 5900},password=on`,
    '-qmp',
    `unix:${qmpPath},server=on,wait=off`,
  ]);
  await pollFor(async () => ((await canConnect(vncPort)) ? true : undefined), {
    what: `QEMU web-1 on 127.0.0.1:${vncPort}`,
    timeoutMs: 60_000,
    detail: () => qemu.describe(),
  });
  const qmp = await Qmp.connect(qmpPath);
  await pollFor(async () => (countLit(await qmp.screendump(dir)) >= 1_500 ? true : undefined), {
    what: "web-1's BIOS text",
    timeoutMs: 90_000,
    intervalMs: 250,
  });
  let serialPath: string | undefined;
  const guests: FixtureGuest[] = [
    {
      vmid: 100,
      name: 'web-1',
      node: 'pve1',
      type: 'qemu',
      status: 'running',
      pool: 'prod',
      tags: 'web',
      vnc: () => net.connect(vncPort, '127.0.0.1'),
      setVncPassword: async (password) => {
        await qmp.execute('change-vnc-password', { password });
      },
    },
    {
      vmid: 101,
      name: 'serial-1',
      node: 'pve2',
      type: 'qemu',
      status: 'running',
      serial: () => net.connect(serialPath ?? '/nonexistent'),
    },
    { vmid: 102, name: 'old', node: 'pve2', type: 'qemu', status: 'stopped', tags: 'web' },
  ];
  const [id, secret] = [PVE_TOKEN.slice(0, PVE_TOKEN.indexOf('=')), PVE_TOKEN.slice(PVE_TOKEN.indexOf('=') + 1)];
  const fixture = await startPveFixture({ dir, guests, tokens: { [id]: secret } });
  const tokenFile = join(dir, 'pve-token');
  await writeFile(tokenFile, `${PVE_TOKEN}\n`, { mode: 0o600 });
  return {
    fixture,
    qmp,
    args: ['--pve-url', fixture.url, '--pve-token-file', tokenFile, '--ca', fixture.caFile],
    startSerialVm: async () => {
      serialPath = (await startQemuSerialVm(lab, 'serial-1', dir)).serialPath;
    },
  };
}
