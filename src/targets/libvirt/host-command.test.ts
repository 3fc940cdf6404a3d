import { describe, expect, it } from 'vitest';
import { channelInvocation } from './channel.js';
import { shellQuote, sshInvocation, virshComplaint, virshInvocation } from './host-command.js';

const kvm1 = { kind: 'ssh', ssh: { host: 'kvm1', user: 'root', port: 2222 }, uri: 'qemu:///system' } as const;

describe('running virsh where the domain is', () => {
  it('runs virsh here with -c, and on the host through ssh in one quoted command', () => {
    expect(virshInvocation({ kind: 'local', uri: 'qemu:///system' }, ['dumpxml', '--', 'web 1'])).toEqual({
      command: 'virsh',
      args: ['-c', 'qemu:///system', 'dumpxml', '--', 'web 1'],
    });
    expect(virshInvocation(kvm1, ['dumpxml', '--', "it's"])).toEqual({
      command: 'ssh',
      args: ['-o', 'BatchMode=yes', '-p', '2222', '-l', 'root', '--', 'kvm1', `LC_ALL=C virsh -c qemu:///system dumpxml -- 'it'\\''s'`],
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
