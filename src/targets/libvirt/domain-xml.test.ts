import { describe, expect, it } from 'vitest';
import { readDomainConsoles } from './domain-xml.js';

/** What libvirt 9.0 (Debian bookworm) printed for the e2e test's running domain, trimmed. */
const LIVE = `<domain type='qemu' id='2'>
  <name>vct-a</name>
  <devices>
    <serial type='pty'>
      <source path='/dev/pts/0'/>
      <target type='isa-serial' port='0'><model name='isa-serial'/></target>
      <alias name='serial0'/>
    </serial>
    <console type='pty' tty='/dev/pts/0'>
      <source path='/dev/pts/0'/>
      <target type='serial' port='0'/>
      <alias name='serial0'/>
    </console>
    <graphics type='vnc' socket='/var/lib/libvirt/qemu/domain-2-vct-a/vnc.sock'>
      <listen type='socket' socket='/var/lib/libvirt/qemu/domain-2-vct-a/vnc.sock'/>
    </graphics>
    <graphics type='spice' port='5900' autoport='yes' listen='127.0.0.1'>
      <listen type='address' address='127.0.0.1'/>
    </graphics>
  </devices>
</domain>`;

describe("a domain's consoles from its XML", () => {
  it('reads graphics in document order (VNC on its socket, SPICE on its autoport) and the console pty', async () => {
    expect(await readDomainConsoles(LIVE)).toEqual({
      name: 'vct-a',
      running: true,
      graphics: [
        { type: 'vnc', address: { kind: 'unix', path: '/var/lib/libvirt/qemu/domain-2-vct-a/vnc.sock' }, passwordSet: false },
        { type: 'spice', address: { kind: 'tcp', host: '127.0.0.1', port: 5900 }, passwordSet: false },
      ],
      serial: { address: { kind: 'pty', path: '/dev/pts/0' } },
    });
  });

  it('notes a password without keeping it, and dials an all-interfaces listener on loopback', async () => {
    const consoles = await readDomainConsoles(
      `<domain id='5'><name>a</name><devices><graphics type='vnc' port='5901' autoport='yes' listen='0.0.0.0' passwd='s3cret'><listen type='address' address='0.0.0.0'/></graphics></devices></domain>`,
    );
    expect(consoles.graphics).toEqual([{ type: 'vnc', address: { kind: 'tcp', host: '127.0.0.1', port: 5901 }, passwordSet: true }]);
    expect(JSON.stringify(consoles)).not.toContain('s3cret');
  });

  it('says why a console cannot be reached: shut off (no id, autoport -1), listen none, TLS-only SPICE', async () => {
    const off = await readDomainConsoles(
      `<domain><name>a</name><devices><graphics type='vnc' port='-1' autoport='yes'/><serial type='pty'><target port='0'/></serial></devices></domain>`,
    );
    expect(off.running).toBe(false);
    expect(off.graphics[0].why).toMatch(/no port yet/);
    expect(off.serial?.why).toMatch(/pty is not there yet/);
    const none = await readDomainConsoles(
      `<domain id='1'><devices><graphics type='spice'><listen type='none'/></graphics></devices></domain>`,
    );
    expect(none.graphics[0].why).toMatch(/listens nowhere/);
    const tls = await readDomainConsoles(
      `<domain id='1'><devices><graphics type='spice' tlsPort='5902' autoport='yes'/></devices></domain>`,
    );
    expect(tls.graphics[0].why).toMatch(/TLS only/);
  });

  it('reaches unix and raw tcp serial devices QEMU listens on, not ones it connects out from', async () => {
    const unix = await readDomainConsoles(
      `<domain id='1'><devices><serial type='unix'><source mode='bind' path='/run/a.sock'/></serial></devices></domain>`,
    );
    expect(unix.serial).toEqual({ address: { kind: 'unix', path: '/run/a.sock' } });
    const tcp = await readDomainConsoles(
      `<domain id='1'><devices><serial type='tcp'><source mode='bind' host='0.0.0.0' service='4555'/><protocol type='raw'/></serial></devices></domain>`,
    );
    expect(tcp.serial).toEqual({ address: { kind: 'tcp', host: '127.0.0.1', port: 4555 } });
    const telnet = await readDomainConsoles(
      `<domain id='1'><devices><serial type='tcp'><source mode='bind' host='127.0.0.1' service='4555'/><protocol type='telnet'/></serial></devices></domain>`,
    );
    expect(telnet.serial?.why).toMatch(/telnet/);
    const out = await readDomainConsoles(
      `<domain id='1'><devices><serial type='unix'><source mode='connect' path='/run/a.sock'/></serial></devices></domain>`,
    );
    expect(out.serial?.why).toMatch(/connects out/);
  });

  it('takes a pty path only as /dev/pts/N: anything else (socat reads `,trunc` as an option) is a reason, not an address', async () => {
    const pty = (path: string) =>
      readDomainConsoles(`<domain id='1'><devices><console type='pty' tty='${path}'><source path='${path}'/></console></devices></domain>`);
    expect((await pty('/dev/pts/12')).serial).toEqual({ address: { kind: 'pty', path: '/dev/pts/12' } });
    for (const path of ['/tmp/f,trunc', '/dev/pts/1,creat', '/dev/pts/../../etc/passwd', 'dev/pts/1', '/dev/pts/1!!/tmp/x', '/dev/ttyS0']) {
      const serial = (await pty(path)).serial;
      expect(serial?.address).toBeUndefined();
      expect(serial?.why).toMatch(/^its pty path ".*" is not a \/dev\/pts\/N terminal/);
    }
  });

  it('refuses what is not a domain', async () => {
    await expect(readDomainConsoles('<network><name>default</name></network>')).rejects.toThrow(/not a libvirt domain/);
  });
});
