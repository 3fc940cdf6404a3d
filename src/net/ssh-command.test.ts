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
      args: ['-c', 'ssh -F ~/lab/ssh_config "$@"', 'ssh', 'jump', 'a b'],
    });
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
