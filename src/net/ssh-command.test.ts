import { describe, expect, it } from 'vitest';
import { sshCommandFrom, sshCommandLine } from './ssh-command.js';

describe('the user ssh command line', () => {
  it('runs plain ssh as it is, on every platform', () => {
    expect(sshCommandLine('ssh', ['-p', '22', 'jump', 'vconsole agent'], 'linux')).toEqual({
      command: 'ssh',
      args: ['-p', '22', 'jump', 'vconsole agent'],
    });
    expect(sshCommandLine('ssh', ['jump'], 'win32')).toEqual({ command: 'ssh', args: ['jump'] });
  });

  it('runs $VCONSOLE_SSH_COMMAND through the shell with the arguments after it, as git runs GIT_SSH_COMMAND', () => {
    expect(sshCommandLine('ssh -F ~/lab/ssh_config', ['jump', 'a b'], 'linux')).toEqual({
      command: '/bin/sh',
      args: ['-c', 'exec ssh -F ~/lab/ssh_config "$@"', 'ssh', 'jump', 'a b'],
    });
  });

  it('execs a plain command, assignments first included, so the process vconsole ends is ssh itself', () => {
    expect(sshCommandLine('/lab/fake-ssh.sh', ['jump'], 'linux').args[1]).toBe('exec /lab/fake-ssh.sh "$@"');
    expect(sshCommandLine('ssh -o ConnectTimeout=5', ['jump'], 'linux').args[1]).toBe('exec ssh -o ConnectTimeout=5 "$@"');
    expect(sshCommandLine('SSH_AUTH_SOCK=/x LANG=C ssh -F y', ['jump'], 'linux')).toEqual({
      command: '/bin/sh',
      args: ['-c', 'SSH_AUTH_SOCK=/x LANG=C exec ssh -F y "$@"', 'ssh', 'jump'],
    });
  });

  it('runs what exec cannot start as written, in a process group of its own that is ended as one', () => {
    for (const command of [
      'cd /lab && ssh',
      'ssh; true',
      'ssh | tee log',
      '(ssh)',
      'ssh\ntrue',
      '! ssh',
      '{ ssh; }',
      'A="a b" ssh',
      'A=$(x) ssh',
    ])
      expect(sshCommandLine(command, ['jump'], 'linux')).toEqual({
        command: '/bin/sh',
        args: ['-c', `${command} "$@"`, 'ssh', 'jump'],
        ownGroup: true,
      });
    expect(sshCommandLine('ssh -F x', ['jump'], 'linux').ownGroup).toBeUndefined();
  });

  it('splits it into words on Windows, which has no /bin/sh', () => {
    expect(sshCommandLine('C:\\OpenSSH\\ssh.exe -F lab.conf', ['jump', 'a b'], 'win32')).toEqual({
      command: 'C:\\OpenSSH\\ssh.exe',
      args: ['-F', 'lab.conf', 'jump', 'a b'],
    });
  });

  it('takes ssh unless the variable names another command', () => {
    expect(sshCommandFrom({})).toBe('ssh');
    expect(sshCommandFrom({ VCONSOLE_SSH_COMMAND: '  ' })).toBe('ssh');
    expect(sshCommandFrom({ VCONSOLE_SSH_COMMAND: ' ssh -F x ' })).toBe('ssh -F x');
  });
});
