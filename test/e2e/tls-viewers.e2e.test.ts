import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate, writeCertificate } from '../fixtures/tls.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram, runProgramBinary, type RunningProcess } from './support/processes.js';
import { startQemuVm, type QemuVm } from './support/qemu.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, type RunningProxy } from './support/vconsole.js';
import { awaitVmWindows } from './support/viewer-windows.js';
import { listWindows, startXvfb, type XServer } from './support/xvfb.js';

// An exposed `proxy --share` port speaks VeNCrypt X509Vnc with the certificate vconsole made on
// first use: TigerVNC (-X509CA) and remote-viewer (gtk-vnc reads $HOME/.pki/CA/cacert.pem)
// show QEMU's BIOS screen through it, pixel-checked against QEMU's own framebuffer, and neither
// gets a picture with another certificate as its CA; TigerVNC's wrong password is answered after
// 1 s, then 2 s (the per-address back-off, seen by a real viewer inside TLS).
const gate = requireTools([
  'qemu-system-x86_64',
  'vncsnapshot',
  'vncpasswd',
  'openssl',
  'convert',
  'import',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'vncviewer',
  'remote-viewer',
]);

const PASSWORD = 'tls-pw-1';
/** Debian's libnss-wrapper: a passwd file of the test's own instead of the system's. */
const NSS_WRAPPER = '/usr/lib/x86_64-linux-gnu/libnss_wrapper.so';
const TIGERVNC = { viewer: 'TigerVNC', className: 'TigerVNC Viewer' };
const REMOTE_VIEWER = { viewer: 'remote-viewer', className: 'Remote-viewer' };

describe.skipIf(gate.skip)(gatedTitle('VeNCrypt X509Vnc on an exposed listener, with TigerVNC and remote-viewer', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let vm: QemuVm;
  let proxy: RunningProxy;
  let port: number;
  let certFile: string;
  let otherCert: string;
  let passwordFile: string;

  beforeAll(async () => {
    dir = await lab.tempDir('tls-viewers');
    [x, vm] = await Promise.all([startXvfb(lab), startQemuVm(lab, 'vm-tls', dir)]);
    const plain = join(dir, 'password');
    await writeFile(plain, `${PASSWORD}\n`, { mode: 0o600 });
    passwordFile = join(dir, 'password.vnc');
    await writeFile(passwordFile, await runProgramBinary('sh', ['-c', `printf '%s\\n' '${PASSWORD}' | vncpasswd -f`]));
    ({ certFile: otherCert } = await writeCertificate(dir, 'other', await selfSignedCertificate('someone else', ['127.0.0.1'])));
    proxy = await startProxy(lab, [`unix://${vm.socketPath}`], ['--share', '--listen', '0.0.0.0', '--password-file', plain], {
      XDG_CONFIG_HOME: join(dir, 'config'),
    });
    port = proxy.ports[0].port;
    const line = /TLS certificate of this listener \(made now, [^)]*\): (\S+) sha256 Fingerprint=(\S+)/.exec(proxy.process.stderr());
    expect(line, proxy.process.describe()).not.toBeNull();
    certFile = line![1];
    expect(certFile).toBe(join(dir, 'config', 'vconsole', 'tls', 'listener-cert.pem'));
    const openssl = await runProgram('openssl', ['x509', '-noout', '-fingerprint', '-sha256', '-in', certFile]);
    expect(openssl.stdout.trim()).toBe(`sha256 Fingerprint=${line![2]}`);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  /**
   * remote-viewer with `ca` as gtk-vnc's CA file (~/.pki/CA/cacert.pem) and a .vv file that hands
   * it the port and the password. gtk-vnc finds the home through getpwuid, not $HOME, so the
   * user's passwd entry is a test one (nss_wrapper) whose home is a temporary directory.
   */
  async function remoteViewer(name: string, ca: string): Promise<RunningProcess> {
    const home = join(dir, name);
    await mkdir(join(home, '.pki', 'CA'), { recursive: true });
    await copyFile(ca, join(home, '.pki', 'CA', 'cacert.pem'));
    const vv = join(home, 'console.vv');
    await writeFile(vv, `[virt-viewer]\ntype=vnc\nhost=127.0.0.1\nport=${port}\npassword=${PASSWORD}\n`, { mode: 0o600 });
    const [uid, gid] = [process.getuid?.() ?? 0, process.getgid?.() ?? 0];
    await writeFile(join(home, 'passwd'), `tester:x:${uid}:${gid}:tester:${home}:/bin/sh\n`);
    await writeFile(join(home, 'group'), `tester:x:${gid}:\n`);
    const env = {
      ...x.env,
      HOME: home,
      LD_PRELOAD: NSS_WRAPPER,
      NSS_WRAPPER_PASSWD: join(home, 'passwd'),
      NSS_WRAPPER_GROUP: join(home, 'group'),
    };
    return lab.start('remote-viewer', 'remote-viewer', [vv], { env });
  }

  function tigervnc(ca: string, passwords = passwordFile): RunningProcess {
    return lab.start(
      'vncviewer',
      'vncviewer',
      ['-SecurityTypes', 'X509Vnc', '-X509CA', ca, '-PasswordFile', passwords, `127.0.0.1::${port}`],
      {
        env: { ...x.env, HOME: join(dir, 'tigervnc-home') },
      },
    );
  }

  it(
    'TigerVNC with -X509CA set to the made certificate shows the VM, and another CA gets no picture',
    async () => {
      const viewer = tigervnc(certFile);
      const [shown] = await awaitVmWindows(x, dir, TIGERVNC, [vm], () => `${viewer.describe()}\n${proxy.process.describe()}`);
      expect(shown.match.textMatch).toBeGreaterThanOrEqual(0.9);
      await viewer.stop();

      const refused = tigervnc(otherCert);
      // TigerVNC asks whether to trust an issuer it does not know; the VM's screen never comes.
      const question = await pollFor(
        async () => (await listWindows(x)).find((w) => w.className === 'TigerVNC Viewer' && /certificate|issuer/i.test(w.title)),
        { what: 'TigerVNC to doubt the certificate', timeoutMs: 60_000, detail: () => refused.describe() },
      );
      expect(question.title).toMatch(/certificate|issuer/i);
      await refused.stop();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'TigerVNC with a wrong password, inside TLS, is answered ever more slowly: 1 s, then 2 s',
    async () => {
      const wrong = join(dir, 'wrong.vnc');
      await writeFile(wrong, await runProgramBinary('sh', ['-c', "printf '%s\\n' 'wrong-pw' | vncpasswd -f"]));
      /** How long the proxy held TigerVNC's connection open before it was turned away. */
      const heldFor = async (): Promise<number> => {
        const before = proxy.process.stderr().length;
        const viewer = tigervnc(certFile, wrong);
        const since = () => proxy.process.stderr().slice(before);
        let connected = 0;
        let ended = 0;
        const deadline = Date.now() + 60_000;
        while (!ended && Date.now() < deadline) {
          if (!connected && /client \d+ connected/.test(since())) connected = Date.now();
          if (connected && /client \d+ disconnected/.test(since())) ended = Date.now();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await viewer.stop();
        expect(ended, `${viewer.describe()}\n${proxy.process.describe()}`).toBeGreaterThan(0);
        return ended - connected;
      };
      const first = await heldFor();
      const second = await heldFor();
      // Lower bounds only: a loaded machine lengthens either hold (TLS handshakes, TigerVNC's
      // start) by its own amount, so comparing the two could fail with the waits right. The
      // schedule itself (1 s, 2 s, 4 s, ...) is auth-backoff.test.ts's.
      expect(first).toBeGreaterThanOrEqual(900);
      expect(second).toBeGreaterThanOrEqual(1900);
      expect(proxy.process.stderr()).toMatch(/wrong VNC password from 127\.0\.0\.1: viewer refused/);
      expect(proxy.process.stderr()).not.toContain(PASSWORD);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'remote-viewer with the made certificate as its CA shows the VM, and with another CA is refused',
    async () => {
      expect(existsSync(NSS_WRAPPER), `${NSS_WRAPPER} (Debian: libnss-wrapper)`).toBe(true);
      const viewer = await remoteViewer('home-good', certFile);
      const [shown] = await awaitVmWindows(x, dir, REMOTE_VIEWER, [vm], () => `${viewer.describe()}\n${proxy.process.describe()}`);
      expect(shown.match.textMatch).toBeGreaterThanOrEqual(0.9);
      await viewer.stop();

      const refused = await remoteViewer('home-bad', otherCert);
      await pollFor(() => (/certificate/i.test(refused.stderr()) ? true : undefined), {
        what: 'remote-viewer to refuse the certificate',
        timeoutMs: 60_000,
        detail: () => refused.describe(),
      });
      expect(refused.stderr()).toMatch(/vnc error The certificate is not trusted/);
      await refused.stop();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
