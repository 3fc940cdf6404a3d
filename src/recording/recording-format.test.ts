import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { mountTinyFilesystem, tinyFilesystemSkip } from '../../test/support/tiny-filesystem.js';
import { waitFor } from '../../test/support/wait.js';
import { AsciicastEventEncoder, encodeAsciicastHeader, isAsciicast, parseAsciicast } from './asciicast.js';
import { RecordingBudget, RecordingFile } from './recording-file.js';
import { encodeRfbRecord, encodeRfbRecordingHead, isRfbRecording, parseRfbRecording, RecordingFormatError } from './rfb-recording.js';
import { tapDuplex } from './tap.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-rec-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('RFB recording format', () => {
  const head = { name: 'default/vm-a', started: '2026-11-30T10:00:00.000Z' };
  const file = Buffer.concat([
    encodeRfbRecordingHead(head),
    encodeRfbRecord('N', 0),
    encodeRfbRecord('S', 1, Buffer.from('RFB 003.008\n')),
    encodeRfbRecord('C', 2, Buffer.from('RFB 003.008\n')),
    encodeRfbRecord('E', 500),
    encodeRfbRecord('N', 1500),
    encodeRfbRecord('S', 1501, Buffer.from([1, 2, 3])),
  ]);

  it('reads back connections, their records in order and the duration', () => {
    expect(isRfbRecording(file)).toBe(true);
    const parsed = parseRfbRecording(file);
    expect(parsed.head).toEqual(head);
    expect(parsed.truncated).toBe(false);
    expect(parsed.durationMs).toBe(1501);
    expect(parsed.connections.map((c) => c.records.map((r) => `${r.kind}@${r.ms}:${r.data.length}`))).toEqual([
      ['S@1:12', 'C@2:12'],
      ['S@1501:3'],
    ]);
  });

  it('keeps what is whole of a file cut inside a record (a crash while writing)', () => {
    for (const cut of [file.length - 1, file.length - 5]) {
      const parsed = parseRfbRecording(file.subarray(0, cut));
      expect(parsed.truncated).toBe(true);
      expect(parsed.connections).toHaveLength(2);
      expect(parsed.connections[1].records).toHaveLength(0);
    }
  });

  it('refuses what is not a recording', () => {
    expect(isRfbRecording(Buffer.from('RFB 003.008\n'))).toBe(false);
    expect(() => parseRfbRecording(Buffer.from('hello'))).toThrow(RecordingFormatError);
    const badKind = Buffer.concat([encodeRfbRecordingHead(head), Buffer.from('X\0\0\0\0\0\0\0\0')]);
    expect(() => parseRfbRecording(badKind)).toThrow(/unknown record kind 0x58/);
  });

  it('refuses a head that is not an object with a name, in words', () => {
    for (const [text, why] of [
      ['null', 'its head is not a JSON object'],
      ['[1]', 'its head is not a JSON object'],
      ['{"started":"x"}', 'its head has no console name'],
      ['{', 'its head is not JSON'],
    ]) {
      expect(() => parseRfbRecording(Buffer.from(`VCONSOLE-RFB-RECORDING 1\n${text}\n`))).toThrow(
        new RecordingFormatError(`not a vconsole recording: ${why}`),
      );
    }
  });

  it('keeps times from going back, and empty connections from piling up', () => {
    const empties = Array.from({ length: 1000 }, () => Buffer.concat([encodeRfbRecord('N', 9), encodeRfbRecord('E', 9)]));
    const parsed = parseRfbRecording(
      Buffer.concat([
        encodeRfbRecordingHead(head),
        ...empties,
        encodeRfbRecord('N', 10),
        encodeRfbRecord('S', 20, Buffer.from([1])),
        encodeRfbRecord('S', 5, Buffer.from([2])),
      ]),
    );
    expect(parsed.connections).toHaveLength(1);
    expect(parsed.connections[0].records.map((r) => r.ms)).toEqual([20, 20]);
    expect(parsed.durationMs).toBe(20);
  });
});

describe('asciicast v2', () => {
  it('never splits a UTF-8 character between two events', () => {
    const encoder = new AsciicastEventEncoder('o');
    const euro = Buffer.from('€', 'utf8');
    expect(encoder.encode(0.5, Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]))?.toString()).toBe('[0.5,"o","a"]\n');
    expect(encoder.encode(0.75, euro.subarray(1, 2))).toBeUndefined();
    expect(encoder.encode(1, euro.subarray(2))?.toString()).toBe('[1,"o","€"]\n');
  });

  it('reads a recording back, dropping a torn last line', () => {
    const text = [
      encodeAsciicastHeader({ version: 2, width: 80, height: 24, timestamp: 1, title: 'vm' }).toString(),
      '[0.1,"o","Select boot device:\\r\\n"]\n',
      '[0.2,"i","\\u001b"]\n',
      '[0.3,"o","tor',
    ].join('');
    expect(isAsciicast(Buffer.from(text))).toBe(true);
    const parsed = parseAsciicast(text);
    expect(parsed.header).toMatchObject({ version: 2, width: 80, height: 24, title: 'vm' });
    expect(parsed.events).toEqual([
      { seconds: 0.1, kind: 'o', text: 'Select boot device:\r\n' },
      { seconds: 0.2, kind: 'i', text: '\u001b' },
    ]);
    expect(parsed.truncated).toBe(true);
  });
});

describe('RecordingFile', () => {
  it('is created 0600, never over an existing file, and written out without being closed', async () => {
    const file = path.join(tempDir(), 'a.vncrec');
    const recording = new RecordingFile(file, Buffer.from('head\n'), new RecordingBudget(1 << 20));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(() => new RecordingFile(file, Buffer.from('x'), new RecordingBudget(10))).toThrow(/EEXIST/);
    recording.append(Buffer.from('abc'));
    // A crash now would lose only what is younger than the flush interval.
    await waitFor(() => fs.readFileSync(file, 'utf8') === 'head\nabc', 'the append on disk');
    recording.close();
  });

  it('stops at the budget shared by all recordings, and says so once', () => {
    const dir = tempDir();
    const budget = new RecordingBudget(20);
    let full = 0;
    const a = new RecordingFile(path.join(dir, 'a'), Buffer.from('0123456789'), budget, () => full++);
    const b = new RecordingFile(path.join(dir, 'b'), Buffer.from('01234'), budget, () => full++);
    expect(a.append(Buffer.from('01234'))).toBe(true);
    expect(b.append(Buffer.from('x'))).toBe(false);
    expect(b.append(Buffer.from('x'))).toBe(false);
    expect([full, budget.usedBytes, b.recording, a.recording]).toEqual([1, 20, false, true]);
    a.close();
    b.close();
    expect(fs.readFileSync(path.join(dir, 'b'), 'utf8')).toBe('01234');
  });

  it.skipIf(tinyFilesystemSkip)(
    `stops, saying "disk full" once and naming the file, when the disk fills; never throws${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async () => {
      const disk = mountTinyFilesystem();
      try {
        const file = path.join(disk.dir, 'a.vncrec');
        const failures: string[] = [];
        const recording = new RecordingFile(file, Buffer.from('head\n'), new RecordingBudget(1 << 30), undefined, (err) =>
          failures.push(err.message),
        );
        disk.fill();
        // 64 KiB and more are written at once; smaller appends by the flush timer.
        expect(() => recording.append(Buffer.alloc(70_000))).not.toThrow();
        recording.append(Buffer.alloc(10));
        await waitFor(() => failures.length > 0, 'the failed write');
        expect(failures).toEqual([`${file}: disk full`]);
        expect([recording.recording, recording.append(Buffer.alloc(100_000))]).toEqual([false, false]);
        expect(() => recording.close()).not.toThrow();
        expect(failures).toHaveLength(1);
      } finally {
        disk.unmount();
      }
    },
  );
});

describe('tapDuplex', () => {
  it('shows the tap both directions in order and passes the bytes on unchanged', async () => {
    const inner = new PassThrough();
    const seen: string[] = [];
    const outer = tapDuplex(inner, { received: (c) => seen.push(`r:${c}`), sent: (c) => seen.push(`s:${c}`) });
    const read: string[] = [];
    outer.on('data', (c: Buffer) => read.push(c.toString()));
    outer.write('ab');
    outer.write('cd');
    // The PassThrough echoes what was written back.
    await waitFor(() => read.join('') === 'abcd', 'the echo');
    expect(seen.filter((x) => x.startsWith('s:'))).toEqual(['s:ab', 's:cd']);
    expect(seen.filter((x) => x.startsWith('r:')).join('')).toBe('r:abr:cd');
  });

  it('reads the inner stream only as fast as the outer one is read', async () => {
    const inner = new PassThrough({ highWaterMark: 16 });
    const outer = tapDuplex(inner, { received: () => undefined, sent: () => undefined });
    for (let i = 0; i < 200; i++) inner.write(Buffer.alloc(1024));
    await new Promise((resolve) => setImmediate(resolve));
    // Nobody reads outer: the inner stream is held, its writer sees backpressure.
    expect(inner.writableLength).toBeGreaterThan(100 * 1024);
    let total = 0;
    outer.on('data', (c: Buffer) => (total += c.length));
    await waitFor(() => total === 200 * 1024, 'everything read');
  });

  it('ends after the bytes before the end, and a destroyed inner destroys the outer', async () => {
    const inner = new PassThrough();
    let closed = 0;
    const outer = tapDuplex(inner, { received: () => undefined, sent: () => undefined, closed: () => closed++ });
    let text = '';
    outer.on('data', (c: Buffer) => (text += c.toString()));
    const ended = new Promise((resolve) => outer.once('end', resolve));
    inner.end('last words');
    await ended;
    expect(text).toBe('last words');

    const inner2 = new PassThrough();
    const outer2 = tapDuplex(inner2, { received: () => undefined, sent: () => undefined });
    const failure = new Promise<Error>((resolve) => outer2.once('error', resolve));
    inner2.destroy(new Error('console gone'));
    expect((await failure).message).toBe('console gone');
    expect(outer2.destroyed).toBe(true);
    outer.destroy();
    await waitFor(() => closed === 1, 'the tap told of the close');
  });
});
