// Remmina, the viewer added as one descriptor file plus one registry line: found where Linux
// installs it, named with --viewer remmina, started with `-c vnc://HOST:PORT`.
import { describe, expect, it } from 'vitest';
import { BANNERS, fakeViewerEnvironment } from '../../../test/fixtures/fake-viewer-environment.js';
import { VconsoleError } from '../../errors.js';
import { chooseViewer, parseViewerRequest } from '../choose.js';
import { buildViewerCommand } from '../command.js';
import { detectViewers, identifyExecutable } from '../detect.js';

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
    expect(found[2]).toEqual({ id: 'remmina', name: 'Remmina', path: '/usr/bin/remmina', version: '1.4.29' });
    expect(system.probes).toContain('/usr/bin/remmina --version');
  });

  it('is found as the Flathub app in the system or the user installation, and in /snap/bin', async () => {
    const flatpak = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/home/me/.local/share/flatpak/exports/bin/org.remmina.Remmina': { version: BANNERS.remmina },
    });
    expect(await detectViewers(flatpak)).toEqual([
      { id: 'remmina', name: 'Remmina', path: '/home/me/.local/share/flatpak/exports/bin/org.remmina.Remmina', version: '1.4.29' },
    ]);
    const snap = fakeViewerEnvironment('linux', LINUX_ENV, { '/snap/bin/remmina': {} });
    expect(await detectViewers(snap, { versions: false })).toEqual([{ id: 'remmina', name: 'Remmina', path: '/snap/bin/remmina' }]);
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
});
