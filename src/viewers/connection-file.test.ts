import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionFileSettings, connectionFileText, removeConnectionFile, writeConnectionFile } from './connection-file.js';
import { remoteViewer } from './descriptors/remote-viewer.js';
import { consoleKind } from '../console-kinds/index.js';

describe("remote-viewer's connection file", () => {
  it('writes the [virt-viewer] section, one key a line, newlines in a value as \\n', () => {
    expect(connectionFileText({ type: 'spice', 'tls-port': 61000, ca: 'A\nB\n' })).toBe(
      '[virt-viewer]\ntype=spice\ntls-port=61000\nca=A\\nB\\n\n',
    );
    expect(() => connectionFileText({ 'bad\nkey': 'x' })).toThrow(/bad key/);
  });

  it('refuses a value with a control character other than a newline', () => {
    expect(() => connectionFileText({ title: 'vm\u001b]52;c;eA==\u0007' })).toThrow(/setting title holds a control character/);
    expect(() => connectionFileText({ title: 'vm\rproxy=x' })).toThrow(/control character/);
  });

  it('keeps where and how to connect, drops the rest, and turns USB autoshare and smartcards off', () => {
    const given = {
      type: 'spice',
      host: 'pvespiceproxy:x',
      'tls-port': 61000,
      password: 'p',
      'enable-usb-autoshare': 1,
      'usb-filter': '-1,-1,-1,-1,1',
      'enable-usbredir': 1,
      'enable-smartcard': 1,
      'delete-this-file': 0,
      'tls-ciphers': 'NULL',
      'newer-version-url': 'http://x/',
    };
    expect(connectionFileSettings(given)).toEqual({
      type: 'spice',
      host: 'pvespiceproxy:x',
      'tls-port': 61000,
      password: 'p',
      'enable-usb-autoshare': 0,
      'enable-smartcard': 0,
      'delete-this-file': 1,
    });
  });

  it('is a new 0600 file in a new 0700 directory, both removed by removeConnectionFile', async () => {
    const file = await writeConnectionFile({ type: 'spice', password: 'secret', 'enable-usb-autoshare': 1 }, 'pve:100 (x)');
    expect(file).toMatch(/pve_100_x_\.vv$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('password=secret');
    expect(text).toContain('enable-usb-autoshare=0');
    removeConnectionFile(file);
    expect(existsSync(dirname(file))).toBe(false);
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
