import { describe, expect, it } from 'vitest';
import { BANNERS, fakeViewerEnvironment } from '../../test/fixtures/fake-viewer-environment.js';
import { UsageError, VconsoleError } from '../errors.js';
import { CONSOLE_KINDS, type ConsoleKind } from '../console-kinds/index.js';
import { chooseViewer, companionViewers, parseViewerRequest, selectViewer, viewerArgsNotice } from './choose.js';
import { detectViewers } from './detect.js';

const LINUX_FILES = {
  '/usr/bin/remote-viewer': { version: BANNERS.remoteViewer },
  '/usr/bin/vncviewer': { help: BANNERS.tigervnc },
  '/opt/viewers/my-viewer': {},
  '/opt/viewers/readme.txt': { executable: false },
};

function linux(env: Record<string, string> = {}) {
  return fakeViewerEnvironment('linux', { PATH: '/usr/bin', HOME: '/home/me', ...env }, LINUX_FILES);
}

describe('chooseViewer', () => {
  it('uses the first viewer of the preference order when nothing is requested', async () => {
    const system = linux();
    const choice = await chooseViewer(await detectViewers(system), {}, system);
    expect(choice).toMatchObject({ kind: 'viewer', source: 'preference', viewer: { id: 'remote-viewer' } });
  });

  it('honours VCONSOLE_VIEWER, and --viewer over it', async () => {
    const system = linux({ VCONSOLE_VIEWER: 'TigerVNC' });
    const detected = await detectViewers(system);
    expect(await chooseViewer(detected, {}, system)).toMatchObject({ kind: 'viewer', source: 'environment', viewer: { id: 'tigervnc' } });
    expect(await chooseViewer(detected, { viewer: 'remote-viewer' }, system)).toMatchObject({
      source: 'flag',
      viewer: { id: 'remote-viewer' },
    });
    expect(await chooseViewer(detected, { viewer: 'none' }, system)).toEqual({ kind: 'none', source: 'flag' });
  });

  it('passes --viewer-arg values on', async () => {
    const system = linux();
    const choice = await chooseViewer(await detectViewers(system), { viewer: 'tigervnc', viewerArgs: ['-FullScreen'] }, system);
    expect(choice).toMatchObject({ kind: 'viewer', extraArgs: ['-FullScreen'] });
  });

  it('says which viewer gets --viewer-arg when --viewer did not name one', async () => {
    const system = linux();
    const detected = await detectViewers(system);
    const args = ['-FullScreen'];
    const auto = await chooseViewer(detected, { viewerArgs: args }, system);
    expect(viewerArgsNotice(auto, args)).toBe(
      '--viewer-arg -FullScreen goes to remote-viewer (virt-viewer) (/usr/bin/remote-viewer), the first viewer found here; name the viewer it is meant for with --viewer',
    );
    const fromEnv = linux({ VCONSOLE_VIEWER: 'tigervnc' });
    expect(viewerArgsNotice(await chooseViewer(detected, { viewerArgs: args }, fromEnv), args)).toBe(
      '--viewer-arg -FullScreen goes to TigerVNC (/usr/bin/vncviewer), the viewer VCONSOLE_VIEWER names',
    );
    expect(viewerArgsNotice(await chooseViewer(detected, { viewer: 'none', viewerArgs: args }, system), args)).toBe(
      '--viewer-arg -FullScreen is not used: no viewer is launched (--viewer none)',
    );
    expect(viewerArgsNotice({ kind: 'not-found' }, args)).toBe('--viewer-arg -FullScreen is not used: no viewer was found to launch');
  });

  it('has nothing to say without --viewer-arg, or when --viewer named the viewer', async () => {
    const system = linux();
    const detected = await detectViewers(system);
    expect(viewerArgsNotice(await chooseViewer(detected, {}, system), undefined)).toBeUndefined();
    expect(viewerArgsNotice(await chooseViewer(detected, { viewer: 'tigervnc', viewerArgs: ['-x'] }, system), ['-x'])).toBeUndefined();
  });

  it('rejects an unknown name with a UsageError listing the valid ones', async () => {
    const system = linux();
    const attempt = chooseViewer([], { viewer: 'vinagre' }, system);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toMatchObject({
      message: '--viewer vinagre: unknown viewer',
      hint: expect.stringContaining(
        'tigervnc, remote-viewer, realvnc, tightvnc, chicken, screen-sharing, remmina, browser, none, or the path of an executable',
      ),
    });
    await expect(chooseViewer([], {}, linux({ VCONSOLE_VIEWER: 'bogus' }))).rejects.toThrow('VCONSOLE_VIEWER bogus: unknown viewer');
  });

  it('reports a named viewer that is not installed, with how to install one', async () => {
    const system = linux();
    const attempt = chooseViewer(await detectViewers(system), { viewer: 'realvnc' }, system);
    await expect(attempt).rejects.toBeInstanceOf(VconsoleError);
    await expect(attempt).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('RealVNC Viewer was not found'),
      hint: expect.stringContaining('apt install'),
    });
  });

  it('accepts the path of any executable, relative to the working directory or ~', async () => {
    const system = linux();
    expect(await chooseViewer([], { viewer: '/opt/viewers/my-viewer' }, system)).toMatchObject({
      kind: 'viewer',
      viewer: { id: 'custom', name: 'my-viewer', path: '/opt/viewers/my-viewer' },
    });
    const relative = { ...system, cwd: '/opt' };
    expect(await chooseViewer([], { viewer: './viewers/my-viewer' }, relative)).toMatchObject({
      viewer: { path: '/opt/viewers/my-viewer' },
    });
    const home = fakeViewerEnvironment('linux', { HOME: '/home/me' }, { '/home/me/bin/v': {} });
    expect(await chooseViewer([], { viewer: '~/bin/v' }, home)).toMatchObject({ viewer: { path: '/home/me/bin/v' } });
  });

  it('rejects a path that is missing or not executable', async () => {
    const system = linux();
    await expect(chooseViewer([], { viewer: '/opt/viewers/readme.txt' }, system)).rejects.toThrow(
      '--viewer /opt/viewers/readme.txt: not an executable file',
    );
    await expect(chooseViewer([], { viewer: '/opt/nothing' }, system)).rejects.toThrow('--viewer /opt/nothing: no such file');
    await expect(chooseViewer([], { viewer: '/opt/nothing' }, system)).rejects.toBeInstanceOf(UsageError);
  });

  it('says so when nothing is installed and nothing requested', async () => {
    const empty = fakeViewerEnvironment('linux', { PATH: '/usr/bin' }, {});
    expect(await chooseViewer(await detectViewers(empty), {}, empty)).toEqual({ kind: 'not-found' });
  });

  it("takes a viewer's program name and virtctl's --vnc-type word for the viewer", async () => {
    const system = linux();
    const detected = await detectViewers(system);
    expect(await chooseViewer(detected, { viewer: 'virt-viewer' }, system)).toMatchObject({ viewer: { id: 'remote-viewer' } });
    expect(await chooseViewer(detected, { viewer: 'tiger' }, system)).toMatchObject({ viewer: { id: 'tigervnc' } });
    expect(parseViewerRequest({ viewer: 'xtigervncviewer' }, system)).toMatchObject({ kind: 'named', id: 'tigervnc' });
    // vncviewer is whichever viewer installed it here, told by its banner.
    expect(await chooseViewer(detected, { viewer: 'vncviewer' }, system)).toMatchObject({
      viewer: { id: 'tigervnc', path: '/usr/bin/vncviewer' },
    });
    const real = fakeViewerEnvironment('linux', { PATH: '/usr/bin' }, { '/usr/bin/vncviewer': { help: BANNERS.realvnc } });
    expect(await chooseViewer(await detectViewers(real), { viewer: 'VNCViewer' }, real)).toMatchObject({ viewer: { id: 'realvnc' } });
    const none = fakeViewerEnvironment('linux', { PATH: '/usr/bin' }, {});
    await expect(selectViewer({ viewer: 'vncviewer' }, none)).rejects.toThrow(
      /--viewer vncviewer: TigerVNC or RealVNC Viewer or TightVNC Viewer was not found/,
    );
  });

  it('reads Windows paths with backslashes', () => {
    const win = fakeViewerEnvironment('win32', {}, {});
    expect(parseViewerRequest({ viewer: 'C:\\VNC\\viewer.exe' }, win)).toMatchObject({ kind: 'path', path: 'C:\\VNC\\viewer.exe' });
    expect(() => parseViewerRequest({ viewer: 'viewer.exe' }, win)).toThrow(UsageError);
  });
});

describe('selectViewer', () => {
  it('probes nothing when a path or none is requested', async () => {
    const system = linux();
    await selectViewer({ viewer: 'none' }, system);
    await selectViewer({ viewer: '/opt/viewers/my-viewer' }, system);
    expect(system.probes).toEqual([]);
    const auto = await selectViewer({}, system);
    expect(auto.detected?.map((v) => v.id)).toEqual(['remote-viewer', 'tigervnc']);
  });

  it('asks no versions: only a vncviewer is probed, to know what it is', async () => {
    const system = linux();
    const auto = await selectViewer({}, system);
    expect(system.probes).toEqual(['/usr/bin/vncviewer -help']);
    // The vncviewer's version comes with the answer that says what it is.
    expect(auto.detected?.map((v) => [v.id, v.version])).toEqual([
      ['remote-viewer', undefined],
      ['tigervnc', '1.12.0'],
    ]);
  });

  it('looks for a named viewer alone, and for a SPICE viewer beside one that shows no SPICE', async () => {
    const named = linux();
    const remote = await selectViewer({ viewer: 'remote-viewer' }, named);
    expect(named.probes).toEqual([]);
    expect(remote.choice).toMatchObject({ kind: 'viewer', viewer: { id: 'remote-viewer', path: '/usr/bin/remote-viewer' } });
    expect(remote.detected?.map((v) => v.id)).toEqual(['remote-viewer']);
    const tiger = linux();
    const chosen = await selectViewer({ viewer: 'tigervnc' }, tiger);
    expect(tiger.probes).toEqual(['/usr/bin/vncviewer -help']);
    expect(chosen.choice).toMatchObject({ kind: 'viewer', viewer: { id: 'tigervnc' } });
    expect(chosen.detected?.map((v) => v.id)).toEqual(['remote-viewer', 'tigervnc']);
  });

  it('looks beside a named viewer for the viewers of every screen it does not show, from the kinds, not for SPICE alone', () => {
    // A kind added with a viewer that shows it: naming a VNC viewer must still find that one.
    const rdpPort: ConsoleKind = { ...CONSOLE_KINDS[0], id: 'rdp-port', label: 'RDP', urlScheme: 'rdp' };
    const kinds = [...CONSOLE_KINDS, rdpPort];
    const shows = { tigervnc: ['vnc'], 'remote-viewer': ['vnc', 'spice'], remmina: ['vnc', 'rdp-port'], custom: ['vnc'] };
    expect(companionViewers(['tigervnc'], kinds, shows)).toEqual(['remote-viewer', 'remmina']);
    expect(companionViewers(['remote-viewer'], kinds, shows)).toEqual(['remmina']);
    expect(companionViewers(['remmina'], kinds, shows)).toEqual(['remote-viewer']);
    // Lines and browser-only pages need no viewer beside it; with today's lists, SPICE's only:
    // remote-viewer, and Remmina, which shows it where its SPICE plugin is installed.
    expect(companionViewers(['tigervnc'])).toEqual(['remote-viewer', 'remmina']);
    expect(companionViewers(['remote-viewer'])).toEqual([]);
    // A copy of Remmina may lack the plugin: remote-viewer is looked for beside it.
    expect(companionViewers(['remmina'])).toEqual(['remote-viewer']);
  });

  it('still says a named viewer is missing the same way', async () => {
    const system = fakeViewerEnvironment(
      'linux',
      { PATH: '/usr/bin', HOME: '/home/me' },
      { '/usr/bin/remote-viewer': { version: BANNERS.remoteViewer } },
    );
    await expect(selectViewer({ viewer: 'tigervnc' }, system)).rejects.toThrow(
      /--viewer tigervnc: TigerVNC was not found on this Linux machine/,
    );
  });
});
