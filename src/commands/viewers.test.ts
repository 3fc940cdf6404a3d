import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BANNERS, fakeViewerEnvironment } from '../../test/fixtures/fake-viewer-environment.js';
import { UsageError } from '../errors.js';
import { runViewersCommand } from './viewers.js';

function capture() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { io: { stdout }, text: () => text };
}

const linuxWithViewers = () =>
  fakeViewerEnvironment(
    'linux',
    { PATH: '/usr/bin' },
    {
      '/usr/bin/remote-viewer': { version: BANNERS.remoteViewer },
      '/usr/bin/vncviewer': { help: BANNERS.tigervnc },
    },
  );

describe('vconsole viewers', () => {
  it('lists what it found and the command open would run for 127.0.0.1:5900 titled VM', async () => {
    const out = capture();
    await runViewersCommand({}, out.io, linuxWithViewers());
    const text = out.text();
    expect(text).toContain('OS: Linux (linux)');
    expect(text).toMatch(/remote-viewer\s+remote-viewer \(virt-viewer\)\s+11\.0\s+vnc,spice\s+\/usr\/bin\/remote-viewer/);
    expect(text).toMatch(/tigervnc\s+TigerVNC\s+1\.12\.0\s+vnc\s+\/usr\/bin\/vncviewer/);
    expect(text).toContain(
      'The browser viewer (--viewer browser) shows vnc and serial consoles; only remote-viewer shows SPICE (and remmina with its SPICE plugin).',
    );
    expect(text).toContain('open would use: remote-viewer (virt-viewer)');
    expect(text).toContain('  /usr/bin/remote-viewer --title VM vnc://127.0.0.1:5900\n');
  });

  it('lists the consoles each found copy shows: Remmina shows SPICE only where its SPICE plugin is installed', async () => {
    const remmina = (plugin: boolean) =>
      fakeViewerEnvironment(
        'linux',
        { PATH: '/usr/bin' },
        {
          '/usr/bin/remmina': { version: BANNERS.remmina },
          ...(plugin ? { '/usr/lib/x86_64-linux-gnu/remmina/plugins/remmina-plugin-spice.so': {} } : {}),
        },
      );
    const without = capture();
    await runViewersCommand({}, without.io, remmina(false));
    expect(without.text()).toMatch(/remmina\s+Remmina\s+1\.4\.29\s+vnc\s+\/usr\/bin\/remmina/);
    const withPlugin = capture();
    await runViewersCommand({ json: true }, withPlugin.io, remmina(true));
    expect((JSON.parse(withPlugin.text()) as { viewers: { consoleTypes: string[] }[] }).viewers[0].consoleTypes).toEqual(['vnc', 'spice']);
  });

  it("prints kubectl's -o yaml as the --json document, -o name as the ids --viewer takes", async () => {
    const json = capture();
    await runViewersCommand({ json: true }, json.io, linuxWithViewers());
    const yaml = capture();
    await runViewersCommand({ output: 'yaml' }, yaml.io, linuxWithViewers());
    expect(parseYaml(yaml.text())).toEqual(JSON.parse(json.text()));
    const names = capture();
    await runViewersCommand({ output: 'name', viewer: 'vncviewer' }, names.io, linuxWithViewers());
    expect(names.text()).toBe('remote-viewer\ntigervnc\n');
    await expect(runViewersCommand({ json: true, output: 'name' }, capture().io, linuxWithViewers())).rejects.toBeInstanceOf(UsageError);
  });

  it('prints exactly one JSON document with --json', async () => {
    const out = capture();
    await runViewersCommand({ json: true, viewer: 'tigervnc', viewerArg: ['-FullScreen'] }, out.io, linuxWithViewers());
    const report = JSON.parse(out.text());
    expect(report).toEqual({
      os: 'linux',
      viewers: [
        {
          id: 'remote-viewer',
          name: 'remote-viewer (virt-viewer)',
          path: '/usr/bin/remote-viewer',
          version: '11.0',
          consoleTypes: ['vnc', 'spice'],
        },
        { id: 'tigervnc', name: 'TigerVNC', path: '/usr/bin/vncviewer', version: '1.12.0', consoleTypes: ['vnc'] },
      ],
      browser: { consoleTypes: ['vnc', 'serial'] },
      selected: {
        id: 'tigervnc',
        name: 'TigerVNC',
        path: '/usr/bin/vncviewer',
        command: ['/usr/bin/vncviewer', '-FullScreen', '127.0.0.1::5900'],
      },
      lookedFor: expect.arrayContaining(['remote-viewer on PATH']),
      install: expect.stringContaining('apt install tigervnc-viewer'),
    });
  });

  it('explains what it looked for and how to install a viewer when there is none', async () => {
    const out = capture();
    await runViewersCommand({}, out.io, fakeViewerEnvironment('darwin', { PATH: '/usr/bin' }, {}));
    expect(out.text()).toContain('No VNC viewer found.');
    expect(out.text()).toContain('TigerVNC (TigerVNC.app');
    expect(out.text()).toContain('brew install --cask tigervnc-viewer');

    const json = capture();
    await runViewersCommand({ json: true }, json.io, fakeViewerEnvironment('win32', { Path: '' }, {}));
    expect(JSON.parse(json.text())).toMatchObject({
      os: 'win32',
      viewers: [],
      selected: null,
      install: expect.stringContaining('winget install TigerVNC.TigerVNC'),
    });
  });

  it('shows that --viewer none launches nothing', async () => {
    const out = capture();
    await runViewersCommand({ viewer: 'none' }, out.io, linuxWithViewers());
    expect(out.text()).toContain('open would launch no viewer (--viewer none)');
  });

  it('shows that --viewer browser opens consoles in a browser tab, and that a bare machine falls back to it', async () => {
    const out = capture();
    await runViewersCommand({ viewer: 'browser' }, out.io, linuxWithViewers());
    expect(out.text()).toContain('open would show screens and serial consoles in a browser tab (--viewer browser)');
    const bare = capture();
    await runViewersCommand({}, bare.io, fakeViewerEnvironment('linux', { PATH: '/usr/bin' }, {}));
    expect(bare.text()).toContain('open would find no viewer to launch and show screens in a browser tab');
  });

  it('says which viewer a --viewer-arg goes to when --viewer does not name one', async () => {
    const out = capture();
    await runViewersCommand({ viewerArg: ['-FullScreen'] }, out.io, linuxWithViewers());
    expect(out.text()).toContain(
      '\n--viewer-arg -FullScreen goes to remote-viewer (virt-viewer) (/usr/bin/remote-viewer), the first viewer found here; name the viewer it is meant for with --viewer\n',
    );
    const named = capture();
    await runViewersCommand({ viewer: 'tigervnc', viewerArg: ['-FullScreen'] }, named.io, linuxWithViewers());
    expect(named.text()).not.toContain('goes to');
  });

  it('rejects an unknown --viewer name', async () => {
    await expect(runViewersCommand({ viewer: 'nope' }, capture().io, linuxWithViewers())).rejects.toBeInstanceOf(UsageError);
  });
});
