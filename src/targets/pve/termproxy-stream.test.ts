import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { duplexPair } from '../../streams/duplex-pair.js';
import { failure, readBytes } from '../../../test/support/streams.js';
import { TERMPROXY_FRAME_DATA_BYTES, dataFrame, openTermproxy, resizeFrame } from './termproxy-stream.js';

describe('termproxy framing', () => {
  it('counts LENGTH in bytes, as termproxy reads it', () => {
    expect(dataFrame(Buffer.from('é\r')).toString()).toBe('0:3:é\r');
    expect(resizeFrame(132, 43).toString()).toBe('1:132:43:');
  });

  it('logs in with USER:TICKET, takes OK, then frames writes and passes output raw', async () => {
    const [ours, theirs] = duplexPair();
    const opening = openTermproxy(ours, 'root@pam', 'PVEVNC:T', AbortSignal.timeout(5_000));
    expect((await readBytes(theirs, 18)).toString()).toBe('root@pam:PVEVNC:T\n');
    theirs.write('OKlogin: ');
    const stream = await opening;
    expect((await readBytes(stream, 7)).toString()).toBe('login: ');
    stream.write('ls\r');
    expect((await readBytes(theirs, 7)).toString()).toBe('0:3:ls\r');
    // A paste bigger than a frame may be (pveproxy: 128 KiB) goes as several frames.
    const frames: string[] = [];
    theirs.on('data', (chunk: Buffer) => frames.push(chunk.subarray(0, 8).toString('latin1')));
    stream.write(Buffer.alloc(TERMPROXY_FRAME_DATA_BYTES * 2 + 1, 0x61));
    await expect.poll(() => frames.length, { timeout: 10_000 }).toBe(3);
    expect(frames.map((f) => f.split(':').slice(0, 2).join(':'))).toEqual(['0:32768', '0:32768', '0:1']);
    stream.destroy();
  });

  it('a close or another answer than OK is the ticket refused', async () => {
    const [ours, theirs] = duplexPair();
    const opening = openTermproxy(ours, 'u@pve', 't', AbortSignal.timeout(5_000));
    theirs.write('NO');
    expect((await failure(opening)).message).toBe("Proxmox VE's terminal proxy refused the console ticket");
    const closed = new PassThrough();
    const closing = openTermproxy(closed, 'u@pve', 't', AbortSignal.timeout(5_000));
    closed.destroy();
    expect((await failure(closing)).message).toMatch(/refused the console ticket/);
  });
});
