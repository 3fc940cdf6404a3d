import { describe, expect, it } from 'vitest';
import { BANNERS, fakeViewerEnvironment } from '../../test/fixtures/fake-viewer-environment.js';
import { detectViewers, identifyExecutable } from './detect.js';
import { identifyVncviewerOutput } from './identify.js';

const LINUX_ENV = { PATH: '/home/me/bin:/usr/local/bin:/usr/bin', HOME: '/home/me' };
const MAC_ENV = { PATH: '/usr/bin:/bin', HOME: '/Users/me' };
const WIN_ENV = {
  Path: 'C:\\Windows\\system32;"C:\\Tools";C:\\Windows',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  ProgramFiles: 'C:\\Program Files',
  'ProgramFiles(x86)': 'C:\\Program Files (x86)',
  USERPROFILE: 'C:\\Users\\me',
};

describe('identifying a program called vncviewer by its -help output', () => {
  it('tells TigerVNC, RealVNC and TightVNC apart and reads their versions', () => {
    expect(identifyVncviewerOutput(BANNERS.tigervnc)).toEqual({ id: 'tigervnc', version: '1.12.0' });
    expect(identifyVncviewerOutput(BANNERS.realvnc)).toEqual({ id: 'realvnc', version: '7.5.1' });
    expect(identifyVncviewerOutput(BANNERS.tightvnc)).toEqual({ id: 'tightvnc', version: '1.3.10' });
    expect(identifyVncviewerOutput('usage: something else')).toBeUndefined();
  });

  it('does not mistake an old TigerVNC that credits RealVNC for RealVNC', () => {
    const old = 'TigerVNC Viewer for X version 1.1.0 - built Sep 2011\nCopyright (C) 2002-2005 RealVNC Ltd.\n';
    expect(identifyVncviewerOutput(old)).toEqual({ id: 'tigervnc', version: '1.1.0' });
  });
});

describe('detectViewers on Linux', () => {
  it('finds remote-viewer and TigerVNC on PATH, with versions, remote-viewer first as virtctl prefers', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/usr/bin/remote-viewer': { version: BANNERS.remoteViewer },
      '/usr/bin/vncviewer': { help: BANNERS.tigervnc },
      '/usr/bin/xtigervncviewer': { help: BANNERS.tigervnc },
    });
    expect(await detectViewers(system)).toEqual([
      { id: 'remote-viewer', name: 'remote-viewer (virt-viewer)', path: '/usr/bin/remote-viewer', version: '11.0' },
      { id: 'tigervnc', name: 'TigerVNC', path: '/usr/bin/vncviewer', version: '1.12.0' },
    ]);
  });

  it('recognises a vncviewer that is RealVNC by its output', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, { '/usr/bin/vncviewer': { help: BANNERS.realvnc } });
    expect(await detectViewers(system)).toEqual([{ id: 'realvnc', name: 'RealVNC Viewer', path: '/usr/bin/vncviewer', version: '7.5.1' }]);
  });

  it('asks --version when -help says nothing it knows', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, { '/usr/bin/vncviewer': { help: '', version: BANNERS.realvnc } });
    expect((await detectViewers(system))[0]).toMatchObject({ id: 'realvnc', version: '7.5.1' });
    expect(system.probes).toEqual(['/usr/bin/vncviewer -help', '/usr/bin/vncviewer --version']);
  });

  it('lists RealVNC as vncviewer and TigerVNC as xtigervncviewer when both are installed', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/usr/bin/vncviewer': { help: BANNERS.realvnc },
      '/usr/bin/xtigervncviewer': { help: BANNERS.tigervnc },
      '/usr/bin/xtightvncviewer': { help: BANNERS.tightvnc },
    });
    const found = await detectViewers(system);
    expect(found.map((v) => [v.id, v.path, v.version])).toEqual([
      ['tigervnc', '/usr/bin/xtigervncviewer', '1.12.0'],
      ['realvnc', '/usr/bin/vncviewer', '7.5.1'],
      ['tightvnc', '/usr/bin/xtightvncviewer', '1.3.10'],
    ]);
  });

  it('takes the first PATH entry, skips files that are not executable, and treats an unknown vncviewer as TigerVNC-compatible', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/home/me/bin/vncviewer': { executable: false, help: BANNERS.realvnc },
      '/usr/local/bin/vncviewer': { help: 'TurboVNC Viewer (64-bit) v3.0' },
      '/usr/bin/vncviewer': { help: BANNERS.tigervnc },
    });
    expect(await detectViewers(system)).toEqual([
      { id: 'tigervnc', name: 'vncviewer (TigerVNC-compatible)', path: '/usr/local/bin/vncviewer' },
    ]);
  });

  it('finds nothing on an empty PATH', async () => {
    expect(await detectViewers(fakeViewerEnvironment('linux', { PATH: '' }, { '/usr/bin/vncviewer': {} }))).toEqual([]);
  });
});

describe('detectViewers on macOS', () => {
  it('prefers TigerVNC, then Chicken, RealVNC and remote-viewer as virtctl does, Screen Sharing last, without running app bundles', async () => {
    const system = fakeViewerEnvironment('darwin', MAC_ENV, {
      '/Applications/TigerVNC Viewer 1.9.0.app/Contents/MacOS/TigerVNC Viewer': {},
      '/Applications/TigerVNC Viewer 1.14.1.app/Contents/MacOS/TigerVNC Viewer': {},
      '/Applications/Chicken.app/Contents/MacOS/Chicken': {},
      '/Applications/VNC Viewer.app/Contents/MacOS/vncviewer': {},
      '/Applications/VNC Viewer.app/Contents/Info.plist': {
        executable: false,
        text: '<plist><dict><key>CFBundleShortVersionString</key>\n<string>7.12.0</string></dict></plist>',
      },
      '/opt/homebrew/bin/remote-viewer': { version: BANNERS.remoteViewer },
      '/usr/bin/open': {},
    });
    const found = await detectViewers(system);
    expect(found.map((v) => [v.id, v.path, v.version])).toEqual([
      ['tigervnc', '/Applications/TigerVNC Viewer 1.14.1.app/Contents/MacOS/TigerVNC Viewer', '1.14.1'],
      ['chicken', '/Applications/Chicken.app/Contents/MacOS/Chicken', undefined],
      ['realvnc', '/Applications/VNC Viewer.app/Contents/MacOS/vncviewer', '7.12.0'],
      ['remote-viewer', '/opt/homebrew/bin/remote-viewer', '11.0'],
      ['screen-sharing', '/usr/bin/open', undefined],
    ]);
    expect(system.probes).toEqual(['/opt/homebrew/bin/remote-viewer --version']);
  });

  it('finds a TigerVNC.app whose executable is "TigerVNC Viewer", its version from Info.plist, and Intel Homebrew\'s remote-viewer', async () => {
    const system = fakeViewerEnvironment('darwin', MAC_ENV, {
      '/Applications/TigerVNC.app/Contents/MacOS/TigerVNC Viewer': {},
      '/Applications/TigerVNC.app/Contents/Info.plist': {
        executable: false,
        text: '<plist><dict><key>CFBundleShortVersionString</key>\n<string>1.16.0</string></dict></plist>',
      },
      '/usr/local/bin/remote-viewer': { version: BANNERS.remoteViewer },
    });
    expect((await detectViewers(system)).map((v) => [v.id, v.path, v.version])).toEqual([
      ['tigervnc', '/Applications/TigerVNC.app/Contents/MacOS/TigerVNC Viewer', '1.16.0'],
      ['remote-viewer', '/usr/local/bin/remote-viewer', '11.0'],
    ]);
  });

  it('finds TigerVNC.app in ~/Applications', async () => {
    const system = fakeViewerEnvironment('darwin', MAC_ENV, { '/Users/me/Applications/TigerVNC.app/Contents/MacOS/vncviewer': {} });
    expect(await detectViewers(system)).toEqual([
      { id: 'tigervnc', name: 'TigerVNC', path: '/Users/me/Applications/TigerVNC.app/Contents/MacOS/vncviewer' },
    ]);
  });
});

describe('detectViewers on Windows', () => {
  it('finds the usual Program Files installs, newest VirtViewer first, with versions from the install directory', async () => {
    const system = fakeViewerEnvironment('win32', WIN_ENV, {
      'C:\\Program Files\\VirtViewer v7.0-256\\bin\\remote-viewer.exe': {},
      'C:\\Program Files\\VirtViewer v11.0-256\\bin\\remote-viewer.exe': {},
      'C:\\Program Files\\TigerVNC\\vncviewer.exe': {},
      'C:\\Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe': {},
      'C:\\Program Files (x86)\\TightVNC\\tvnviewer.exe': {},
    });
    expect(await detectViewers(system)).toEqual([
      {
        id: 'remote-viewer',
        name: 'remote-viewer (virt-viewer)',
        path: 'C:\\Program Files\\VirtViewer v11.0-256\\bin\\remote-viewer.exe',
        version: '11.0-256',
      },
      { id: 'tigervnc', name: 'TigerVNC', path: 'C:\\Program Files\\TigerVNC\\vncviewer.exe' },
      { id: 'realvnc', name: 'RealVNC Viewer', path: 'C:\\Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe' },
      { id: 'tightvnc', name: 'TightVNC Viewer', path: 'C:\\Program Files (x86)\\TightVNC\\tvnviewer.exe' },
    ]);
    expect(system.probes).toEqual([]);
  });

  it('searches the Path variable (any case, quoted entries) with PATHEXT, and tells a RealVNC vncviewer.exe by its directory', async () => {
    const system = fakeViewerEnvironment(
      'win32',
      { ...WIN_ENV, Path: 'C:\\Windows;"C:\\Program Files\\RealVNC\\VNC Viewer"' },
      {
        'C:\\Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe': {},
      },
    );
    expect(await detectViewers(system)).toEqual([
      { id: 'realvnc', name: 'RealVNC Viewer', path: 'C:\\Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe' },
    ]);
  });

  it('falls back to C:\\Program Files when ProgramFiles is not set', async () => {
    const system = fakeViewerEnvironment('win32', { Path: '' }, { 'C:\\Program Files\\TigerVNC\\vncviewer.exe': {} });
    expect((await detectViewers(system)).map((v) => v.id)).toEqual(['tigervnc']);
  });
});

describe('identifyExecutable (a path given with --viewer)', () => {
  it('gives a known viewer its own identity and anything else the custom kind', async () => {
    const system = fakeViewerEnvironment('linux', LINUX_ENV, {
      '/opt/virt/bin/remote-viewer': { version: BANNERS.remoteViewer },
      '/opt/real/vncviewer': { help: BANNERS.realvnc },
      '/opt/odd/vncviewer': { help: 'something' },
      '/opt/my-viewer': {},
    });
    expect(await identifyExecutable(system, '/opt/virt/bin/remote-viewer')).toMatchObject({ id: 'remote-viewer', version: '11.0' });
    expect(await identifyExecutable(system, '/opt/real/vncviewer')).toMatchObject({ id: 'realvnc' });
    expect(await identifyExecutable(system, '/opt/odd/vncviewer')).toEqual({ id: 'custom', name: 'vncviewer', path: '/opt/odd/vncviewer' });
    expect(await identifyExecutable(system, '/opt/my-viewer')).toEqual({ id: 'custom', name: 'my-viewer', path: '/opt/my-viewer' });
  });
});
