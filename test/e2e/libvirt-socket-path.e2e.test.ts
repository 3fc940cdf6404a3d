// A domain's VNC socket at a path that is hostile to every program it passes through on the way
// over ssh: the host's shell (a space, `'`, `$(...)`) and socat's address syntax (`,` options, `:`,
// `!!` a second address, a backslash). A real libvirtd and QEMU make the socket; the domain XML
// names it; vconsole reaches it here and through a real sshd, and nothing of the name is evaluated.
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibvirtd, tcgDomainXml, virsh, xmlText } from './support/libvirtd.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { startSshd, type SshServer } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

const gate = requireTools(['virsh', 'libvirtd', 'virtlogd', 'qemu-system-x86_64', 'sshd', 'ssh', 'ssh-keygen', 'socat']);
const DOMAIN = `vce2e-sockpath-${process.pid}`;
/** A directory name the shell would run (`cd` to $HOME, then touch) and socat would split at `,` `:` `!!`. */
const HOSTILE_DIR = `a b,trunc:c!!$(cd;touch EVALUATED)'d\\e`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const lab = new ProcessLab();
let dir: string;
let shots: string;
let farHome: string;
let socketPath: string;
let sshd: SshServer;

function domainXml(): string {
  return tcgDomainXml(DOMAIN, `<graphics type='vnc' socket='${xmlText(socketPath)}'/>`);
}

async function screenshot(target: string): Promise<void> {
  const file = join(shots, `shot-${Date.now()}.png`);
  const run = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', target, '-o', file], {
    env: vconsoleEnv({ VCONSOLE_SSH_COMMAND: sshd.sshCommand }),
    timeoutMs: 60_000,
  });
  expect(run.code, run.stderr).toBe(0);
  expect((await readFile(file)).subarray(0, 8)).toEqual(PNG_SIGNATURE);
}

describe.skipIf(gate.skip)(gatedTitle("libvirt: a VNC socket path that the host's shell and socat must take literally", gate), () => {
  beforeAll(async () => {
    await ensureLibvirtd(lab);
    dir = await lab.tempDir('sockpath');
    shots = await lab.tempDir('sockpath-shots');
    farHome = join(dir, 'far-home');
    await mkdir(farHome);
    const socketDir = join(dir, HOSTILE_DIR);
    await mkdir(socketDir);
    // QEMU runs as libvirt's own user: it makes the socket there.
    await chmod(dir, 0o777);
    await chmod(socketDir, 0o777);
    socketPath = join(socketDir, 'vnc.sock');
    const xmlFile = join(dir, 'domain.xml');
    await writeFile(xmlFile, domainXml());
    const created = await virsh('create', xmlFile);
    if (created.code !== 0) throw new Error(`virsh create failed: ${created.stderr}`);
    const pid = Number((await readFile(`/run/libvirt/qemu/${DOMAIN}.pid`, 'utf8').catch(() => '')).trim());
    lab.adopt(pid, DOMAIN);
    sshd = await startSshd(lab, 'sockpath-host', { configLines: [`SetEnv HOME=${farHome}`] });
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await virsh('destroy', DOMAIN).catch(() => undefined);
    await lab.cleanup();
  });

  it(
    'the domain XML names the socket as it is, and vconsole reaches it here',
    async () => {
      const xml = await virsh('dumpxml', DOMAIN);
      expect(xml.stdout).toContain(xmlText(socketPath));
      await screenshot(`libvirt:${DOMAIN}`);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "through ssh socat reaches it too: the host's shell evaluates none of the path and socat reads no option from it",
    async () => {
      await screenshot(`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}`);
      expect(await readdir(farHome)).toEqual([]);
      expect((await readdir(dir)).sort()).toEqual([HOSTILE_DIR, 'domain.xml', 'far-home'].sort());
      expect(await readdir(join(dir, HOSTILE_DIR))).toEqual(['vnc.sock']);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
