import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { startQemuSerialVm, type QemuSerialVm } from './support/qemu.js';
import { BOOT_MENU, ESC } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy } from './support/vconsole.js';
import { writeFile } from 'node:fs/promises';

// An exposed serial console of `proxy --share` with the client a user has: socat's OPENSSL
// address, checking the certificate vconsole made. The password goes in on the prompt's line,
// then ESC reaches SeaBIOS on a real QEMU and its boot menu comes back, all inside TLS.
const gate = requireTools(['qemu-system-x86_64', 'socat']);

describe.skipIf(gate.skip)(gatedTitle('a serial console over TLS on an exposed listener, with socat', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let vm: QemuSerialVm;

  beforeAll(async () => {
    dir = await lab.tempDir('tls-serial');
    vm = await startQemuSerialVm(lab, 'vm-serial-tls', dir);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  it(
    'socat OPENSSL: with the made certificate as cafile gets the password prompt, then the VM line: ESC answers the boot menu',
    async () => {
      const passwordFile = join(dir, 'password');
      await writeFile(passwordFile, 'ser1al-p\n', { mode: 0o600 });
      const configHome = join(dir, 'config');
      const proxy = await startProxy(
        lab,
        [`unix://${vm.serialPath}#serial`],
        ['--share', '--listen', '0.0.0.0', '--password-file', passwordFile],
        {
          XDG_CONFIG_HOME: configHome,
        },
      );
      const cafile = join(configHome, 'vconsole', 'tls', 'listener-cert.pem');
      const socat = lab.start('socat', 'socat', ['-', `OPENSSL:127.0.0.1:${proxy.ports[0].port},cafile=${cafile}`], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const stdin = socat.child.stdin!;
      await pollFor(() => (socat.stdout().endsWith('vconsole password: ') ? true : undefined), {
        what: 'the password prompt through socat',
        timeoutMs: 30_000,
        detail: () => `${socat.describe()}\n${proxy.process.describe()}`,
      });
      stdin.write('ser1al-p\r');
      await pollFor(
        () => {
          if (socat.hasExited()) throw new GiveUp(`socat exited:\n${socat.describe()}`);
          if (BOOT_MENU.test(socat.stdout())) return true;
          stdin.write(ESC);
          return undefined;
        },
        {
          what: 'the boot menu through TLS',
          timeoutMs: 60_000,
          intervalMs: 300,
          detail: () => `${socat.describe()}\n${proxy.process.describe()}`,
        },
      );
      expect(proxy.process.stderr()).not.toContain('ser1al-p');
      await socat.stop();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
