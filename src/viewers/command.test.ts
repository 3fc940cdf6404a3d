import { describe, expect, it } from 'vitest';
import { VconsoleError } from '../errors.js';
import { buildViewerCommand, formatCommandLine } from './command.js';
import type { ViewerCandidate, ViewerId } from './types.js';

function viewer(id: ViewerId, path = `/bin/${id}`): ViewerCandidate {
  return { id, name: id, path };
}

const target = { host: '127.0.0.1', port: 41234, title: 'ns/vm-a' };

describe('buildViewerCommand gives each viewer the address form it parses', () => {
  it('TigerVNC and TightVNC: host::port (one colon would be a display number), no title flag', () => {
    expect(buildViewerCommand(viewer('tigervnc'), target)).toEqual({ command: '/bin/tigervnc', args: ['127.0.0.1::41234'] });
    expect(buildViewerCommand(viewer('tightvnc'), target)).toEqual({ command: '/bin/tightvnc', args: ['127.0.0.1::41234'] });
  });

  it('remote-viewer: a vnc:// URL and --title naming the VM', () => {
    expect(buildViewerCommand(viewer('remote-viewer'), target).args).toEqual(['--title', 'ns/vm-a', 'vnc://127.0.0.1:41234']);
    expect(buildViewerCommand(viewer('remote-viewer'), { host: '127.0.0.1', port: 5900 }).args).toEqual(['vnc://127.0.0.1:5900']);
  });

  it('RealVNC: host:port with -WarnUnencrypted=0; a port below 100 takes the :: form', () => {
    expect(buildViewerCommand(viewer('realvnc'), target).args).toEqual(['127.0.0.1:41234', '-WarnUnencrypted=0']);
    expect(buildViewerCommand(viewer('realvnc'), { host: '127.0.0.1', port: 99 }).args[0]).toBe('127.0.0.1::99');
  });

  it('Chicken: host:port', () => {
    expect(buildViewerCommand(viewer('chicken'), target).args).toEqual(['127.0.0.1:41234']);
  });

  it('Screen Sharing: open vnc://host:port, marked as returning at once', () => {
    expect(buildViewerCommand(viewer('screen-sharing', '/usr/bin/open'), target)).toEqual({
      command: '/usr/bin/open',
      args: ['vnc://127.0.0.1:41234'],
      detaches: true,
    });
  });

  it('remote-viewer: a spice:// URL for a SPICE console, title kept', () => {
    expect(buildViewerCommand(viewer('remote-viewer'), { ...target, consoleType: 'spice', extraArgs: ['--full-screen'] }).args).toEqual([
      '--title',
      'ns/vm-a',
      '--full-screen',
      'spice://127.0.0.1:41234',
    ]);
    expect(buildViewerCommand(viewer('remote-viewer'), { host: '::1', port: 5930, consoleType: 'spice' }).args).toEqual([
      'spice://[::1]:5930',
    ]);
    expect(buildViewerCommand(viewer('custom', '/opt/spicy'), { ...target, consoleType: 'spice' }).args).toEqual([
      'spice://127.0.0.1:41234',
    ]);
  });

  it.each(['tigervnc', 'tightvnc', 'realvnc', 'chicken', 'screen-sharing'] as const)(
    '%s cannot show a SPICE console: one clear error',
    (id) => {
      const build = () => buildViewerCommand({ id, name: `Viewer ${id}`, path: `/bin/${id}` }, { ...target, consoleType: 'spice' });
      expect(build).toThrow(VconsoleError);
      expect(build).toThrow(`Viewer ${id} cannot show SPICE consoles`);
    },
  );

  it('a custom executable gets the TigerVNC form host::port', () => {
    expect(buildViewerCommand(viewer('custom', '/opt/my-viewer'), target).args).toEqual(['127.0.0.1::41234']);
  });

  it('puts --viewer-arg values before the address (after it for RealVNC, as virtctl does)', () => {
    const extraArgs = ['-FullScreen'];
    expect(buildViewerCommand(viewer('tigervnc'), { ...target, extraArgs }).args).toEqual(['-FullScreen', '127.0.0.1::41234']);
    expect(buildViewerCommand(viewer('remote-viewer'), { ...target, extraArgs: ['-f'] }).args).toEqual([
      '--title',
      'ns/vm-a',
      '-f',
      'vnc://127.0.0.1:41234',
    ]);
    expect(buildViewerCommand(viewer('realvnc'), { ...target, extraArgs }).args).toEqual([
      '127.0.0.1:41234',
      '-WarnUnencrypted=0',
      '-FullScreen',
    ]);
  });

  it('brackets an IPv6 listen address in every form', () => {
    const v6 = { host: '::1', port: 5901 };
    expect(buildViewerCommand(viewer('tigervnc'), v6).args).toEqual(['[::1]::5901']);
    expect(buildViewerCommand(viewer('tightvnc'), v6).args).toEqual(['[::1]::5901']);
    expect(buildViewerCommand(viewer('remote-viewer'), v6).args).toEqual(['vnc://[::1]:5901']);
    expect(buildViewerCommand(viewer('realvnc'), v6).args[0]).toBe('[::1]:5901');
    expect(buildViewerCommand(viewer('chicken'), v6).args).toEqual(['[::1]:5901']);
    expect(buildViewerCommand(viewer('screen-sharing'), v6).args).toEqual(['vnc://[::1]:5901']);
    expect(buildViewerCommand(viewer('tigervnc'), { host: '[::1]', port: 5901 }).args).toEqual(['[::1]::5901']);
    expect(buildViewerCommand(viewer('remote-viewer'), { host: 'fe80::1%eth0', port: 5901 }).args).toEqual(['vnc://[fe80::1%25eth0]:5901']);
  });
});

describe('formatCommandLine', () => {
  it('quotes arguments with spaces the way each shell needs', () => {
    const command = { command: '/Applications/TigerVNC Viewer 1.14.1.app/Contents/MacOS/TigerVNC Viewer', args: ['127.0.0.1::5900'] };
    expect(formatCommandLine(command, 'darwin')).toBe(
      "'/Applications/TigerVNC Viewer 1.14.1.app/Contents/MacOS/TigerVNC Viewer' 127.0.0.1::5900",
    );
    const win = { command: 'C:\\Program Files\\TigerVNC\\vncviewer.exe', args: ['127.0.0.1::5900'] };
    expect(formatCommandLine(win, 'win32')).toBe('"C:\\Program Files\\TigerVNC\\vncviewer.exe" 127.0.0.1::5900');
    expect(formatCommandLine({ command: 'remote-viewer', args: ['--title', "Bob's VM", 'vnc://[::1]:5900'] }, 'linux')).toBe(
      "remote-viewer --title 'Bob'\\''s VM' vnc://[::1]:5900",
    );
  });
});
