// Remmina, the viewer added as one descriptor file plus one registry line: found where Linux
// installs it, named with --viewer remmina, started with `-c vnc://HOST:PORT`.
import { describe, expect, it } from 'vitest';
import { BANNERS, fakeViewerEnvironment } from '../../../test/fixtures/fake-viewer-environment.js';
import { VconsoleError } from '../../errors.js';
import { chooseViewer, parseViewerRequest, selectViewer } from '../choose.js';
import { buildViewerCommand } from '../command.js';
import { detectViewers, identifyExecutable } from '../detect.js';
import { planViewers } from '../viewer-plan.js';

const LINUX_ENV = { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/me' };

describe('Remmina', () => {
  it('is found on PATH with the version it prints, after remote-viewer and TigerVNC in the Linux order', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/usr/bin/remmina': { version: BANNERS.remmina },
      '/usr/bin/xtigervncviewer': { help: BANNERS.tigervnc },
      '/usr/bin/remote-viewer': { version: BANNERS.remoteViewer },
      '/usr/bin/xtightvncviewer': { help: BANNERS.tightvnc },
    });
    const found = await detectViewers(system);
    expect(found.map((v) => v.id)).toEqual(['remote-viewer', 'tigervnc', 'remmina', 'tightvnc']);
    expect(found[2]).toEqual({ id: 'remmina', name: 'Remmina', path: '/usr/bin/remmina', version: '1.4.29', shows: ['vnc'] });
    expect(system.probes).toContain('/usr/bin/remmina --version');
  });

  it('is found as the Flathub app in the system or the user installation, and in /snap/bin', async () => {
    const flatpak = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/home/me/.local/share/flatpak/exports/bin/org.remmina.Remmina': { version: BANNERS.remmina },
    });
    expect(await detectViewers(flatpak)).toEqual([
      {
        id: 'remmina',
        name: 'Remmina',
        path: '/home/me/.local/share/flatpak/exports/bin/org.remmina.Remmina',
        version: '1.4.29',
        shows: ['vnc', 'spice'],
      },
    ]);
    const snap = fakeViewerEnvironment('linux', LINUX_ENV, { '/snap/bin/remmina': {} });
    // Both bundle the SPICE plugin.
    expect(await detectViewers(snap, { versions: false })).toEqual([
      { id: 'remmina', name: 'Remmina', path: '/snap/bin/remmina', shows: ['vnc', 'spice'] },
    ]);
    expect(snap.probes).toEqual([]);
  });

  it('is looked for on Linux only: on macOS `--viewer remmina` says it was not found and what was looked for', async () => {
    const mac = fakeViewerEnvironment('darwin', { PATH: '/usr/bin:/opt/homebrew/bin' }, { '/opt/homebrew/bin/remmina': {} });
    expect(await detectViewers(mac)).toEqual([]);
    await expect(chooseViewer([], { viewer: 'Remmina' }, mac)).rejects.toThrow(
      /--viewer Remmina: Remmina was not found on this macOS machine/,
    );
  });

  it('is a --viewer name, and a --viewer path named remmina is Remmina', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, { '/opt/remmina/bin/remmina': { version: BANNERS.remmina } });
    expect(parseViewerRequest({ viewer: 'remmina' }, system)).toMatchObject({ kind: 'named', id: 'remmina' });
    expect(await identifyExecutable(system, '/opt/remmina/bin/remmina')).toEqual({
      id: 'remmina',
      name: 'Remmina',
      path: '/opt/remmina/bin/remmina',
      version: '1.4.29',
      shows: ['vnc'],
    });
  });

  it('connects with `-c vnc://HOST:PORT`, --viewer-arg values first, and its exit 0 means launched', () => {
    const viewer = { id: 'remmina', name: 'Remmina', path: '/usr/bin/remmina' } as const;
    expect(buildViewerCommand(viewer, { host: '127.0.0.1', port: 41234, title: 'ns/vm-a', extraArgs: ['--enable-fullscreen'] })).toEqual({
      command: '/usr/bin/remmina',
      args: ['--enable-fullscreen', '-c', 'vnc://127.0.0.1:41234'],
      detaches: true,
    });
    expect(buildViewerCommand(viewer, { host: '::1', port: 5901 }).args).toEqual(['-c', 'vnc://[::1]:5901']);
    expect(() => buildViewerCommand(viewer, { host: '127.0.0.1', port: 5901, consoleType: 'serial' })).toThrow(VconsoleError);
  });

  describe('SPICE, where its SPICE plugin is installed', () => {
    /** What Debian/Ubuntu's remmina-plugin-spice installs on amd64 (packages.debian.org file list). */
    const PLUGIN = '/usr/lib/x86_64-linux-gnu/remmina/plugins/remmina-plugin-spice.so';
    const machine = (plugin: boolean) =>
      fakeViewerEnvironment('linux', LINUX_ENV, {
        '/usr/bin/remmina': { version: BANNERS.remmina },
        '/usr/bin/xtigervncviewer': { help: BANNERS.tigervnc },
        // Another library directory, as on any multiarch system: not where the plugin is.
        '/usr/lib/x86_64-linux-gnu/libc.so.6': {},
        ...(plugin ? { [PLUGIN]: {} } : {}),
      });
    const remminaOf = async (plugin: boolean) => (await detectViewers(machine(plugin))).find((v) => v.id === 'remmina');

    it('the distribution copy shows SPICE with remmina-plugin-spice installed, and VNC alone without it', async () => {
      expect((await remminaOf(true))?.shows).toEqual(['vnc', 'spice']);
      expect((await remminaOf(false))?.shows).toEqual(['vnc']);
      // Another triplet's directory holds it on arm64.
      const arm = fakeViewerEnvironment('linux', LINUX_ENV, {
        '/usr/bin/remmina': {},
        '/usr/lib/aarch64-linux-gnu/remmina/plugins/remmina-plugin-spice.so': {},
      });
      expect((await detectViewers(arm, { versions: false }))[0]?.shows).toEqual(['vnc', 'spice']);
    });

    it('--viewer remmina, no remote-viewer: a SPICE console goes to Remmina only with the plugin', async () => {
      const withPlugin = await selectViewer({ viewer: 'remmina' }, machine(true));
      const plan = planViewers(withPlugin.choice, withPlugin.detected ?? []);
      expect(plan.routes.spice).toMatchObject({ kind: 'native', viewer: { id: 'remmina', path: '/usr/bin/remmina' } });
      expect(plan.routes.spice).toEqual(plan.routes.vnc);
      expect(plan.notices.spice).toBeUndefined();

      const without = await selectViewer({ viewer: 'remmina' }, machine(false));
      const served = planViewers(without.choice, without.detected ?? []);
      expect(served.routes.vnc).toMatchObject({ kind: 'native', viewer: { id: 'remmina' } });
      expect(served.routes.spice).toBeUndefined();
      expect(served.notices.spice).toBe(
        'no SPICE viewer found (only remote-viewer and Remmina with its SPICE plugin show SPICE): install virt-viewer or remmina-plugin-spice, or point a SPICE client at the ports shown',
      );
    });

    it('a VNC viewer chosen, no remote-viewer: SPICE goes to a Remmina with the plugin', async () => {
      const chosen = await selectViewer({ viewer: 'tigervnc' }, machine(true));
      const plan = planViewers(chosen.choice, chosen.detected ?? []);
      expect(plan.routes.spice).toMatchObject({ kind: 'native', viewer: { id: 'remmina' } });
      expect(plan.notices.spice).toBe('TigerVNC cannot show SPICE: SPICE consoles open in Remmina');
    });

    it('connects with `-c spice://127.0.0.1:PORT`; a copy without the plugin is refused, saying what to install', async () => {
      const able = await remminaOf(true);
      const unable = await remminaOf(false);
      if (!able || !unable) throw new Error('Remmina not detected');
      expect(buildViewerCommand(able, { host: '127.0.0.1', port: 41235, consoleType: 'spice' })).toEqual({
        command: '/usr/bin/remmina',
        args: ['-c', 'spice://127.0.0.1:41235'],
        detaches: true,
      });
      const refused = () => buildViewerCommand(unable, { host: '127.0.0.1', port: 41235, consoleType: 'spice' });
      expect(refused).toThrow('Remmina cannot show SPICE consoles');
      expect(refused).toThrow(
        expect.objectContaining({
          hint: 'install remmina-plugin-spice (Remmina shows SPICE with its SPICE plugin), or use remote-viewer (virt-viewer): --viewer remote-viewer',
        }),
      );
    });
  });
});
