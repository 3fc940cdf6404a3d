import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { describeConnection, domainTarget, parseConnectUri, parseSshTarget } from './connection.js';

describe('libvirt connections', () => {
  it('takes a local URI as virsh does, qemu:///system by default', () => {
    expect(parseConnectUri(undefined)).toEqual({ kind: 'local', uri: 'qemu:///system' });
    expect(parseConnectUri('qemu:///session')).toEqual({ kind: 'local', uri: 'qemu:///session' });
    expect(parseConnectUri('qemu+unix:///system?socket=/run/x')).toEqual({ kind: 'local', uri: 'qemu+unix:///system?socket=/run/x' });
  });

  it('runs virsh on the host for qemu+ssh://, with the path as its local URI there', () => {
    expect(parseConnectUri('qemu+ssh://root@kvm1:2222/system')).toEqual({
      kind: 'ssh',
      ssh: { host: 'kvm1', user: 'root', port: 2222 },
      uri: 'qemu:///system',
    });
    expect(parseConnectUri('qemu+ssh://kvm1/session')).toMatchObject({ kind: 'ssh', uri: 'qemu:///session' });
  });

  it('refuses remote transports other than ssh, and hosts that would be ssh options', () => {
    expect(() => parseConnectUri('qemu+tcp://kvm1/system')).toThrow(/over ssh only/);
    expect(() => parseConnectUri('qemu+ssh://-oProxyCommand=x/system')).toThrow(UsageError);
    expect(() => parseConnectUri('qemu:///system\nx')).toThrow(UsageError);
  });

  it('reads libvirt+ssh://[user@]host[:port]/DOMAIN', () => {
    expect(parseSshTarget('libvirt+ssh://root@kvm1:22/web 1')).toEqual({ ssh: { host: 'kvm1', user: 'root', port: 22 }, domain: 'web 1' });
    expect(parseSshTarget('libvirt+ssh://[::1]/vm')).toEqual({ ssh: { host: '::1', user: undefined, port: undefined }, domain: 'vm' });
    expect(() => parseSshTarget('libvirt+ssh://kvm1/')).toThrow(UsageError);
    expect(() => parseSshTarget('libvirt+ssh://kvm1/a/b')).toThrow(UsageError);
    expect(() => parseSshTarget('libvirt+ssh://kvm1:99999/a')).toThrow(UsageError);
  });

  it('spells the target of a listed domain so that it opens again on its own', () => {
    const ssh = parseConnectUri('qemu+ssh://root@kvm1/system');
    expect(domainTarget(ssh, 'web-1')).toBe('libvirt+ssh://root@kvm1/web-1');
    expect(domainTarget(parseConnectUri(undefined), 'web-1')).toBe('libvirt:web-1');
    expect(describeConnection(ssh)).toBe('qemu:///system on root@kvm1');
  });
});
