import { chmod, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RgbImage } from './support/images.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { startPveLab, type PveLab } from './support/pve.js';
import { BOOT_MENU, askForBootMenu } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand, vconsoleEnv } from './support/vconsole.js';

// pve: targets against the Proxmox VE fixture (the API's shapes, tokens, one-time tickets)
// bridging to real QEMUs: VM 100's VNC server asks for the ticket's VNC password, VM 101's
// serial line carries SeaBIOS's boot menu through termproxy's framing.
const gate = requireTools(['qemu-system-x86_64']);

/** Pixels where the PNG differs from QEMU's own picture, or -1 for another size. */
function differingPixels(png: PNG, image: RgbImage): number {
  if (png.width !== image.width || png.height !== image.height) return -1;
  let differing = 0;
  for (let i = 0; i < png.width * png.height; i++) {
    if (
      png.data[i * 4] !== image.pixels[i * 3] ||
      png.data[i * 4 + 1] !== image.pixels[i * 3 + 1] ||
      png.data[i * 4 + 2] !== image.pixels[i * 3 + 2]
    )
      differing++;
  }
  return differing;
}

describe.skipIf(gate.skip)(gatedTitle('Proxmox VE provider through the PVE fixture to QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let pve: PveLab;

  beforeAll(async () => {
    dir = await lab.tempDir('pve');
    pve = await startPveLab(lab, dir);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    pve?.qmp.close();
    await pve?.fixture.close();
    await lab.cleanup();
  }, 60_000);

  /** `vconsole screenshot TARGET` until it equals QEMU's screendump (the text cursor blinks between pictures). */
  async function screenshotEqualsScreendump(target: string, args: readonly string[]): Promise<void> {
    const file = join(dir, 'shot.png');
    let last = '';
    await pollFor(
      async () => {
        const result = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', target, ...args, '-o', file], {
          env: vconsoleEnv(),
          timeoutMs: 60_000,
        });
        if (result.code !== 0) throw new Error(`screenshot failed (${result.code}): ${result.stderr}`);
        const differing = differingPixels(PNG.sync.read(await readFile(file)), await pve.qmp.screendump(dir));
        last = `${differing} pixels differ`;
        return differing === 0 ? true : undefined;
      },
      { what: 'a screenshot equal to the screendump', timeoutMs: 90_000, intervalMs: 100, detail: () => last },
    );
  }

  const upgrades = () => pve.fixture.requests.filter((r) => r === 'UPGRADE /api2/json/nodes/pve1/qemu/100/vncwebsocket').length;

  it(
    "`screenshot pve:web-1` answers the VNC password of the ticket and equals QEMU's screendump",
    async () => {
      await screenshotEqualsScreendump('pve:web-1', pve.args);
      expect(pve.fixture.requests).toContain('POST /api2/json/nodes/pve1/qemu/100/vncproxy');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`proxy pve:100` and `open pve:100`: shared by themselves, any viewer on the port sees the VM, no ticket to type',
    async () => {
      for (const [command, args] of [
        ['proxy', []],
        ['open', ['--viewer', 'none', '--no-tui']],
      ] as const) {
        const running = await startPortCommand(lab, command, ['pve:100'], [...args, ...pve.args]);
        const before = upgrades();
        await screenshotEqualsScreendump(`tcp://127.0.0.1:${running.ports[0].port}`, []);
        // The hub holds one console connection for all its viewers.
        expect(upgrades() - before).toBeLessThanOrEqual(1);
        await running.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`proxy pve:100 --record DIR`: the recording tap keeps the console password with the stream; the recording has the screen',
    async () => {
      const recordings = await lab.tempDir('pve-rec');
      const running = await startPortCommand(lab, 'proxy', ['pve:100'], ['--record', recordings, ...pve.args]);
      await screenshotEqualsScreendump(`tcp://127.0.0.1:${running.ports[0].port}`, []);
      await running.interrupt();
      const files = await readdir(recordings);
      expect(files).toHaveLength(1);
      expect((await stat(join(recordings, files[0]))).size).toBeGreaterThan(1_000);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`console pve:serial-1`: ESC through termproxy framing, the boot menu back',
    async () => {
      await pve.startSerialVm();
      const run = await askForBootMenu(lab, ['pve:serial-1', ...pve.args]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(BOOT_MENU);
      expect(pve.fixture.requests).toContain('POST /api2/json/nodes/pve2/qemu/101/termproxy');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`list --provider pve --pve-tag web`: the tagged guests with their state; errors are one line',
    async () => {
      const list = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'list', '--provider', 'pve', '--pve-tag', 'web', '-o', 'json', ...pve.args],
        {
          env: vconsoleEnv(),
          timeoutMs: 60_000,
        },
      );
      expect(list.code, list.stderr).toBe(0);
      const rows = JSON.parse(list.stdout) as { target: string; state: string }[];
      expect(rows.map((r) => [r.target, r.state])).toEqual([
        ['pve:old', 'stopped'],
        ['pve:web-1', 'running'],
      ]);
      const stopped = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', 'pve:old', ...pve.args], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(stopped.code).toBe(1);
      expect(stopped.stderr.trim().split('\n')).toHaveLength(1);
      expect(stopped.stderr).toMatch(/VM 102 is stopped, not running.*qm start 102/);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`open pve:web-1#spice`: remote-viewer is handed a private connection file with what spiceproxy gave',
    async () => {
      // A remote-viewer that answers --version and keeps a copy of the file it was given (and its mode).
      const bin = await lab.tempDir('pve-viewer');
      const viewer = join(bin, 'remote-viewer');
      const copy = join(dir, 'given.vv');
      await writeFile(
        viewer,
        `#!/bin/sh\nif [ "$1" = --version ]; then echo 'remote-viewer version 11.0'; exit 0; fi\nstat -c %a "$1" > ${copy}.mode; cp "$1" ${copy}\n`,
      );
      await chmod(viewer, 0o755);
      const run = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'open', 'pve:web-1#spice', '--viewer', viewer, '--no-tui', ...pve.args],
        {
          env: vconsoleEnv(),
          timeoutMs: 60_000,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect((await readFile(`${copy}.mode`, 'utf8')).trim()).toBe('600');
      const text = await readFile(copy, 'utf8');
      const lines = text.trim().split('\n');
      expect(lines[0]).toBe('[virt-viewer]');
      const settings = Object.fromEntries(
        lines.slice(1).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(settings).toMatchObject({
        type: 'spice',
        proxy: 'http://127.0.0.1:3128',
        'tls-port': '61000',
        'delete-this-file': '1',
        'host-subject': 'OU=PVE Cluster Node,O=Proxmox Virtual Environment,CN=pve1.example',
      });
      expect(settings.host).toMatch(/^pvespiceproxy:/);
      expect(settings.password).toMatch(/^[0-9a-f]{32}$/);
      // The CA on one line, its newlines as \n, as virt-viewer reads it.
      expect(settings.ca).toMatch(/^-----BEGIN CERTIFICATE-----\\n.*\\n-----END CERTIFICATE-----\\n$/);
      expect(pve.fixture.spiceProxies).toEqual(['127.0.0.1']);
      expect(run.stderr + run.stdout).not.toContain(settings.password);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
