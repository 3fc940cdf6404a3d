import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture } from '../fixtures/openstack-api.js';
import { REPO_ROOT, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// `open` sends a SPICE console to remote-viewer with a spice:// address, also when --viewer
// chose a VNC-only viewer for screens, and says so; stand-in viewers on PATH, a plain TCP
// server standing in for QEMU's SPICE port (the client speaks first).
let binDir: string;
const running: RunningVconsole[] = [];
const servers: net.Server[] = [];

beforeAll(() => {
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-spice-open-'));
  const script = path.join(binDir, 'fake-viewer.mjs');
  fs.copyFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'fake-viewer.mjs'), script);
  fs.chmodSync(script, 0o755);
  for (const name of ['vncviewer', 'remote-viewer']) fs.symlinkSync(script, path.join(binDir, name));
  fs.symlinkSync(process.execPath, path.join(binDir, 'node'));
});
afterAll(() => fs.rmSync(binDir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
  for (const server of servers.splice(0)) server.close();
});

/** A server that records what each connection's client sends first. */
async function spiceStandIn(): Promise<{ port: number; firstBytes: string[] }> {
  const firstBytes: string[] = [];
  const server = net.createServer((socket) => {
    socket.once('data', (chunk) => firstBytes.push(chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, firstBytes };
}

describe('vconsole open with a SPICE console', () => {
  it('launches remote-viewer with spice:// even when --viewer chose TigerVNC for screens, and says why', async () => {
    const spice = await spiceStandIn();
    const log = path.join(binDir, 'viewers.jsonl');
    const child = startVconsole(['open', `tcp://127.0.0.1:${spice.port}#spice`, 'demo:vm-a', '--viewer', 'tigervnc', '--no-tui'], {
      PATH: binDir,
      FAKE_VIEWER_LOG: log,
    });
    running.push(child);
    const lines = await child.jsonLines(2);
    const spiceLine = lines.find((l) => l.type === 'spice');
    expect(spiceLine).toBeDefined();
    const entries = () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { name: string; argv: string[]; event?: string })
        : [];
    await waitFor(() => entries().filter((e) => e.event === 'connected').length === 2, 'both viewers connected');
    const remote = entries().find((e) => e.name === 'remote-viewer' && e.event === 'connected');
    expect(remote?.argv.at(-1)).toBe(`spice://127.0.0.1:${spiceLine!.port}`);
    expect(entries().find((e) => e.name === 'vncviewer' && e.event === 'connected')).toBeDefined();
    await waitFor(() => spice.firstBytes.includes('REDQ'), 'the SPICE link magic at the console');
    await child.waitForStderr(/TigerVNC cannot show SPICE: SPICE consoles open in remote-viewer/);
  });

  it.each([
    ['SPICE', ['spice-html5', 'serial'], 'spice'],
    ['serial', ['serial'], 'serial'],
  ])('openstack auto settling on %s launches no VNC viewer at its port', async (_kind, consoleTypes, type) => {
    const openstack = await startOpenStackFixture();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-spice-os-'));
    try {
      openstack.settings.consoleTypes = consoleTypes as typeof openstack.settings.consoleTypes;
      const cloudsFile = path.join(dir, 'clouds.yaml');
      fs.writeFileSync(
        cloudsFile,
        `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`,
      );
      const log = path.join(dir, 'viewers.jsonl');
      const child = startVconsole(['open', 'openstack:web-1', '--cloud', 'fixture', 'demo:vm-a', '--viewer', 'tigervnc', '--no-tui'], {
        PATH: binDir,
        FAKE_VIEWER_LOG: log,
        OS_CLIENT_CONFIG_FILE: cloudsFile,
        HOME: dir,
      });
      running.push(child);
      const lines = await child.jsonLines(2);
      const settled = lines.find((l) => String(l.target).startsWith('openstack:'));
      expect(settled?.type).toBe(type);
      const entries = () =>
        fs.existsSync(log)
          ? fs
              .readFileSync(log, 'utf8')
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as { name: string; argv: string[]; event?: string; port?: number })
          : [];
      // demo:vm-a's viewer connects after the OpenStack console settled (both started together).
      await waitFor(() => entries().some((e) => e.name === 'vncviewer' && e.event === 'connected'), 'the viewer of demo:vm-a');
      if (type === 'spice')
        await waitFor(
          () => entries().some((e) => e.name === 'remote-viewer' && e.event === 'connected'),
          'remote-viewer at the SPICE console',
        );
      expect(child.stderr()).not.toMatch(/\[openstack:web-1[^\]]*\] viewer: TigerVNC/);
      expect(entries().filter((e) => e.name === 'vncviewer' && e.port === settled?.port)).toEqual([]);
    } finally {
      await openstack.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
