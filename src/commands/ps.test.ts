import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPsCommand } from './ps.js';

function output() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe.skipIf(process.platform === 'win32')('vconsole ps', () => {
  let xdg: string;
  const saved = process.env.XDG_RUNTIME_DIR;
  beforeEach(() => {
    xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-ps-'));
    process.env.XDG_RUNTIME_DIR = xdg;
  });
  afterEach(() => {
    process.env.XDG_RUNTIME_DIR = saved;
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    fs.rmSync(xdg, { recursive: true, force: true });
  });

  function hold(name: string, record: object): void {
    const dir = path.join(xdg, 'vconsole');
    fs.mkdirSync(dir, { mode: 0o700, recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.sock`), '');
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(record));
  }

  const vmA = {
    pid: process.pid,
    command: 'open',
    target: 'default/vm-a',
    provider: 'kubevirt',
    kind: 'vnc',
    since: '2026-12-01T17:00:00.000Z',
    joiners: 2,
  };

  it('lists what is held as a table: pid, command, target, kind, since, joiners', async () => {
    hold('a', vmA);
    const [stdout, stderr] = [output(), output()];
    expect(await runPsCommand({}, { stdout: stdout.stream, stderr: stderr.stream })).toBe(0);
    const [header, row] = stdout.text().trimEnd().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['PID', 'COMMAND', 'TARGET', 'KIND', 'SINCE', 'JOINERS']);
    expect(row.split(/\s{2,}/)).toEqual([
      String(process.pid),
      'vconsole open',
      'default/vm-a',
      'vnc',
      expect.stringMatching(/^2026-12-0[12] \d\d:\d\d:00$/),
      '2',
    ]);
    expect(stderr.text()).toBe('');
  });

  it('-o json: one document, [] when nothing is held', async () => {
    const empty = output();
    await runPsCommand({ output: 'json' }, { stdout: empty.stream, stderr: output().stream });
    expect(JSON.parse(empty.text())).toEqual([]);
    hold('a', vmA);
    const one = output();
    await runPsCommand({ json: true }, { stdout: one.stream, stderr: output().stream });
    expect(JSON.parse(one.text())).toEqual([vmA]);
  });

  it('-o name: one TARGET#KIND a line, a control character in the target shown escaped', async () => {
    hold('a', { ...vmA, target: 'openstack:clip\u001b]52;c;eA==\u0007' });
    const stdout = output();
    expect(await runPsCommand({ output: 'name' }, { stdout: stdout.stream, stderr: output().stream })).toBe(0);
    expect(stdout.text()).toBe('openstack:clip\\e]52;c;eA==\\x07#vnc\n');
  });

  it('nothing held: says where it looked, on stderr, exit 0', async () => {
    const [stdout, stderr] = [output(), output()];
    expect(await runPsCommand({}, { stdout: stdout.stream, stderr: stderr.stream })).toBe(0);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toBe(`no consoles held by your vconsoles on this machine (looked in ${path.join(xdg, 'vconsole')})\n`);
  });
});
