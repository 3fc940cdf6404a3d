import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionFileText, writeConnectionFile } from './connection-file.js';
import { remoteViewer } from './descriptors/remote-viewer.js';
import { consoleKind } from '../console-kinds/index.js';

describe("remote-viewer's connection file", () => {
  it('writes the [virt-viewer] section, one key a line, newlines in a value as \\n', () => {
    expect(connectionFileText({ type: 'spice', 'tls-port': 61000, ca: 'A\nB\n' })).toBe(
      '[virt-viewer]\ntype=spice\ntls-port=61000\nca=A\\nB\\n\n',
    );
    expect(() => connectionFileText({ 'bad\nkey': 'x' })).toThrow(/bad key/);
  });

  it('is a new 0600 file in a new 0700 directory', async () => {
    const file = await writeConnectionFile({ type: 'spice', password: 'secret' }, 'pve:100 (x)');
    expect(file).toMatch(/pve_100_x_\.vv$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    expect(await readFile(file, 'utf8')).toContain('password=secret');
  });

  it('remote-viewer opens the file instead of an address', () => {
    const kind = consoleKind('spice');
    if (!kind) throw new Error('no spice kind');
    expect(
      remoteViewer.command('/usr/bin/remote-viewer', { host: '', port: 0, kind, connectionFile: '/tmp/x.vv', extraArgs: ['-f'] }),
    ).toEqual({
      command: '/usr/bin/remote-viewer',
      args: ['-f', '/tmp/x.vv'],
    });
  });
});
