import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait.js';
import { channelInvocation } from './channel.js';
import { UNTIL_STDIN_ENDS, shellQuote, sshInvocation, untilChannelCloses, virshComplaint, virshInvocation } from './host-command.js';

const kvm1 = { kind: 'ssh', ssh: { host: 'kvm1', user: 'root', port: 2222 }, uri: 'qemu:///system' } as const;

describe('running virsh where the domain is', () => {
  it('runs virsh here with -c, and on the host through ssh in one quoted command that ends it with the channel', () => {
    expect(virshInvocation({ kind: 'local', uri: 'qemu:///system' }, ['dumpxml', '--', 'web 1'])).toEqual({
      command: 'virsh',
      args: ['-c', 'qemu:///system', 'dumpxml', '--', 'web 1'],
    });
    expect(virshInvocation(kvm1, ['dumpxml', '--', "it's"])).toEqual({
      command: 'ssh',
      args: [
        '-o',
        'BatchMode=yes',
        '-p',
        '2222',
        '-l',
        'root',
        '--',
        'kvm1',
        `sh -c ${shellQuote(UNTIL_STDIN_ENDS)} sh virsh -c qemu:///system dumpxml -- 'it'\\''s'`,
      ],
    });
  });

  it('runs VCONSOLE_SSH_COMMAND through the shell with the arguments after it, as git runs GIT_SSH_COMMAND', () => {
    const env = { VCONSOLE_SSH_COMMAND: 'ssh -F /lab/ssh_config' };
    expect(sshInvocation({ host: 'lab' }, ['-W', 'h:1'], undefined, env, 'linux')).toEqual({
      command: '/bin/sh',
      args: ['-c', 'exec ssh -F /lab/ssh_config "$@"', 'ssh', '-o', 'BatchMode=yes', '-W', 'h:1', '--', 'lab'],
    });
    expect(sshInvocation({ host: 'lab' }, [], 'true', env, 'win32')).toEqual({
      command: 'ssh',
      args: ['-F', '/lab/ssh_config', '-o', 'BatchMode=yes', '--', 'lab', 'true'],
    });
  });

  it('carries a TCP port with ssh -W and a socket or pty with socat (else nc -U) on the host, never a forwarded port', () => {
    expect(channelInvocation(kvm1, { kind: 'tcp', host: '127.0.0.1', port: 5901 }).args).toEqual([
      '-o',
      'BatchMode=yes',
      '-p',
      '2222',
      '-l',
      'root',
      '-W',
      '127.0.0.1:5901',
      '--',
      'kvm1',
    ]);
    const unix = channelInvocation(kvm1, { kind: 'unix', path: '/var/lib/libvirt/qemu/domain-1-a/vnc.sock' }).args.at(-1);
    expect(unix).toContain('socat - UNIX-CONNECT:/var/lib/libvirt/qemu/domain-1-a/vnc.sock');
    expect(unix).toContain('nc -U /var/lib/libvirt/qemu/domain-1-a/vnc.sock');
    expect(channelInvocation(kvm1, { kind: 'pty', path: '/dev/pts/3' }).args.at(-1)).toContain('socat - OPEN:/dev/pts/3');
    for (const address of [
      { kind: 'unix', path: '/x' },
      { kind: 'pty', path: '/dev/pts/1' },
    ] as const)
      expect(channelInvocation(kvm1, address).args.join(' ')).not.toMatch(/-[LRD]\b/);
  });

  describe.skipIf(process.platform === 'win32')('the host side of a command run through ssh (the real /bin/sh as the login shell)', () => {
    /** What the host's login shell runs for `command`, with a pipe for the ssh channel's stdin. */
    const onHost = (command: string[]) => spawn('/bin/sh', ['-c', untilChannelCloses(command)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const running = (pid: number) => spawnSync('kill', ['-0', String(pid)]).status === 0;

    it('ends a command that neither reads nor writes (virsh event --loop) when the channel closes', async () => {
      const host = onHost(['sh', '-c', 'echo $$; exec sleep 600']);
      const pid = await new Promise<number>((resolve) =>
        host.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
      );
      expect(running(pid)).toBe(true);
      host.stdin.end();
      const [code] = await new Promise<[number | null]>((resolve) => host.once('exit', (c) => resolve([c])));
      expect(code).toBe(143);
      await waitFor(() => !running(pid), `the command (pid ${pid}) to be ended`);
    });

    it("ends by itself with the command's exit status while the channel stays open, and gives it no stdin", async () => {
      const host = onHost(['sh', '-c', 'cat; exit 3']);
      host.stdin.write('not for the command\n');
      let out = '';
      host.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
      const [code] = await new Promise<[number | null]>((resolve) => host.once('close', (c) => resolve([c])));
      expect(code).toBe(3);
      expect(out).toBe('');
      host.stdin.destroy();
    });

    it('passes the words as they are, evaluating none of them', async () => {
      const words = ["it's", '$(echo evaluated)', '`echo evaluated`', 'a b;echo evaluated', '*', '$HOME'];
      const host = onHost(['printf', '%s\\n', ...words]);
      let out = '';
      host.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
      await new Promise((resolve) => host.once('close', resolve));
      host.stdin.destroy();
      expect(out).toBe(words.map((w) => `${w}\n`).join(''));
    });
  });

  it('quotes every word for the remote shell', () => {
    expect(shellQuote('web-1')).toBe('web-1');
    expect(shellQuote('a b;rm -rf /')).toBe("'a b;rm -rf /'");
    expect(shellQuote("o'clock")).toBe(`'o'\\''clock'`);
  });

  it("tells virsh's own error lines, as one line", () => {
    expect(virshComplaint("error: failed to get domain 'x'\n")).toBe("failed to get domain 'x'");
    expect(virshComplaint('error: failed to connect to the hypervisor\nerror: Failed to connect socket: No such file\n')).toBe(
      'failed to connect to the hypervisor: Failed to connect socket: No such file',
    );
    expect(virshComplaint('ssh: connect to host kvm1 port 22: Connection refused\n')).toBe(
      'ssh: connect to host kvm1 port 22: Connection refused',
    );
    expect(virshComplaint('')).toBeUndefined();
  });
});
