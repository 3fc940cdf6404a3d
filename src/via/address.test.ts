import { describe, expect, it } from 'vitest';
import { parseViaAddress, sshArgs } from './address.js';
import { hostKindFromUname } from './executables.js';

describe('--via addresses', () => {
  it('reads [user@]host[:port] as ssh is told it', () => {
    expect(sshArgs(parseViaAddress('jump'))).toEqual(['jump']);
    expect(sshArgs(parseViaAddress('alice@jump.example.com:2222'))).toEqual(['-p', '2222', 'alice@jump.example.com']);
    expect(sshArgs(parseViaAddress('[::1]:22'))).toEqual(['-p', '22', '::1']);
  });

  it('refuses what ssh would read as an option or a shell as more than one word', () => {
    for (const bad of ['-oProxyCommand=x', 'a b', 'host;rm', 'alice@', '@host', 'host:99999', 'host:']) {
      expect(() => parseViaAddress(bad), bad).toThrow(/--via .*: not|the port/);
    }
  });
});

describe('the executable for a host', () => {
  it('names the single executable uname -sm asks for, and none for an OS without one', () => {
    expect(hostKindFromUname('Linux x86_64\n').target).toBe('linux-x64');
    expect(hostKindFromUname('Linux aarch64').target).toBe('linux-arm64');
    expect(hostKindFromUname('Darwin x86_64').target).toBe('macos-x64');
    expect(hostKindFromUname('FreeBSD amd64').target).toBeUndefined();
    expect(hostKindFromUname('SunOS i86pc')).toEqual({ said: 'SunOS i86pc', target: undefined });
  });
});
