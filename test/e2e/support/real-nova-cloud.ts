import type { FixtureServer, OpenStackFixture } from '../../fixtures/openstack-api.js';
import { canConnect, freeLoopbackPort } from './net.js';
import { fixtureCloudArgs, writeFixtureClouds } from './openstack.js';
import { pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import type { NovaConsoleType, RealNova } from './real-nova.js';

/**
 * The pieces around the real Nova console proxies: a QEMU configured as nova-compute's libvirt
 * would (VNC and SPICE on tcp, the serial console a tcp server chardev), and the Keystone/Nova
 * API fixture answering `remote-consoles` with consoles the real Nova stand-in minted, so
 * `openstack:`/`os:` targets go through the real proxies.
 */

export interface NovaQemu {
  ports: Record<NovaConsoleType, number>;
  process: RunningProcess;
}

/**
 * One disk-less PC with all three consoles: VNC and SPICE (QXL) on 127.0.0.1, and SeaBIOS on its
 * serial line (`-nographic` tells it to use the serial port), whose boot menu waits for ESC.
 */
export async function startNovaQemu(lab: ProcessLab, name: string): Promise<NovaQemu> {
  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const [vnc, serial, spice] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    if (vnc <= 5900) continue;
    const qemu = lab.start(
      `qemu ${name}`,
      'qemu-system-x86_64',
      [
        '-name',
        name,
        '-machine',
        'accel=tcg',
        '-m',
        '64',
        '-nographic',
        '-nodefaults',
        '-vga',
        'qxl',
        '-vnc',
        `127.0.0.1:${vnc - 5900}`,
        '-spice',
        `port=${spice},addr=127.0.0.1,disable-ticketing=on`,
        '-serial',
        `tcp:127.0.0.1:${serial},server=on,wait=off`,
        '-boot',
        'menu=on,splash-time=65535',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const up = await pollFor(
      async () => {
        if (qemu.hasExited()) return false;
        const open = await Promise.all([vnc, serial, spice].map((port) => canConnect(port)));
        return open.every(Boolean) ? true : undefined;
      },
      { what: `QEMU ${name}'s VNC, serial and SPICE ports`, timeoutMs: 60_000, detail: () => qemu.describe() },
    );
    if (up) return { ports: { novnc: vnc, serial, 'spice-html5': spice }, process: qemu };
    lastFailure = qemu.describe();
  }
  throw new Error(`QEMU ${name} did not start:\n${lastFailure}`);
}

export interface NovaCloud {
  fixture: OpenStackFixture;
  /** `--cloud e2e` */
  args: string[];
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * The API fixture for the servers named in `instances` (name -> the stand-in's instance), its
 * console URLs minted by the real Nova, and a clouds.yaml naming it `e2e`.
 */
export async function startNovaCloud(dir: string, nova: RealNova, instances: Record<string, string>): Promise<NovaCloud> {
  const { startOpenStackFixture } = await import('../../fixtures/openstack-api.js');
  const servers: FixtureServer[] = Object.entries(instances).map(([name, id]) => ({ id, name, status: 'ACTIVE' }));
  const fixture = await startOpenStackFixture({
    servers,
    consoleTypes: ['novnc', 'serial', 'spice-html5'],
    remoteConsole: (type, server) => nova.createConsole(server.id, type),
  });
  const cloudsFile = await writeFixtureClouds(dir, fixture);
  return {
    fixture,
    ...fixtureCloudArgs(dir, cloudsFile),
    close: () => fixture.close(),
  };
}
