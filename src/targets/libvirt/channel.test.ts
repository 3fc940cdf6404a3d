import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { channelInvocation } from './channel.js';

const kvm1 = { kind: 'ssh', ssh: { host: 'kvm1' }, uri: 'qemu:///system' } as const;
const hasSocat = process.platform !== 'win32' && spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;

/**
 * A socket name with what the host's shell would evaluate (`$(...)`, `'`, a space) and what socat's
 * address syntax reads (`,` options, `:`, `!!` a second address, brackets, quotes, a backslash).
 */
const HOSTILE_NAME = `a b,trunc:c!!d$(touch EVALUATED)e'f"g(h[i{j\\k`;

describe.skipIf(!hasSocat)("a domain's unix socket through the host's shell and socat (the real /bin/sh and socat)", () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reaches the socket whatever its path holds, evaluating none of it and giving socat no option from it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vce-chan-'));
    const path = join(dir, HOSTILE_NAME);
    // What `,trunc` would empty, were it read as an option of a file address.
    writeFileSync(join(dir, 'a b'), 'kept');
    const server = net.createServer((socket) => socket.end('hello from the console\n'));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const remote = channelInvocation(kvm1, { kind: 'unix', path }).args.at(-1) ?? '';
      // The host's login shell runs the remote command line as ssh gives it.
      const host = spawn('/bin/sh', ['-c', remote], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      host.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
      host.stderr.on('data', (chunk: Buffer) => (err += String(chunk)));
      host.stdin.end();
      const code = await new Promise<number | null>((resolve) => host.once('close', resolve));
      expect({ code, out, err }).toEqual({ code: 0, out: 'hello from the console\n', err: '' });
    } finally {
      server.close();
    }
    expect(existsSync(join(dir, 'EVALUATED'))).toBe(false);
    expect(readFileSync(join(dir, 'a b'), 'utf8')).toBe('kept');
    expect(readdirSync(dir).sort()).toEqual(['a b']);
  });
});
