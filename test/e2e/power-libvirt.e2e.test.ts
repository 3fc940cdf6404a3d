// `vconsole power` against a real libvirtd: a defined (persistent) TCG domain is paused, resumed,
// reset, stopped and started again through virsh as vconsole runs it, here and through a real
// sshd (libvirt+ssh://); virsh domstate and `vconsole list` see each state.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibvirtd, tcgDomainXml, virsh } from './support/libvirtd.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { startSshd, type SshServer } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

const gate = requireTools(['virsh', 'libvirtd', 'virtlogd', 'qemu-system-x86_64', 'sshd', 'ssh', 'ssh-keygen']);
const DOMAIN = `vce2e-power-${process.pid}`;

const lab = new ProcessLab();
let dir: string;
let sshd: SshServer;

/** libvirtd starts QEMU in an environment of its own making: the reaper knows each one by its pid. */
async function adoptQemu(): Promise<void> {
  const pid = Number((await readFile(`/run/libvirt/qemu/${DOMAIN}.pid`, 'utf8').catch(() => '')).trim());
  lab.adopt(pid, DOMAIN);
}

async function domstate(): Promise<string> {
  return (await virsh('domstate', DOMAIN)).stdout.trim();
}

function power(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProgram(process.execPath, [VCONSOLE_BIN, 'power', ...args], {
    env: vconsoleEnv({ XDG_STATE_HOME: join(dir, 'state'), ...env }),
    timeoutMs: 90_000,
  });
}

describe.skipIf(gate.skip)(gatedTitle('vconsole power on a libvirt domain', gate), () => {
  beforeAll(async () => {
    await ensureLibvirtd(lab);
    dir = await lab.tempDir('power-libvirt');
    const xml = join(dir, 'domain.xml');
    await writeFile(xml, tcgDomainXml(DOMAIN, `<graphics type='vnc' autoport='yes' listen='127.0.0.1'/>`));
    const defined = await virsh('define', xml);
    if (defined.code !== 0) throw new Error(`virsh define failed: ${defined.stderr}`);
    const started = await virsh('start', DOMAIN);
    if (started.code !== 0) throw new Error(`virsh start failed: ${started.stderr}`);
    await adoptQemu();
    sshd = await startSshd(lab);
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await virsh('destroy', DOMAIN).catch(() => undefined);
    await virsh('undefine', DOMAIN).catch(() => undefined);
    await lab.cleanup();
  });

  it(
    'pause, resume, reset, stop and start: each one action line, the state in virsh and in list',
    async () => {
      const paused = await power([`libvirt:${DOMAIN}`, 'pause', '--yes']);
      expect(paused.code, paused.stderr).toBe(0);
      expect(paused.stderr).toMatch(new RegExp(`^\\S+Z \\S+ libvirt:${DOMAIN}: power pause: paused \\(virsh suspend\\)\\n$`));
      expect(await domstate()).toBe('paused');

      // Paused already: refused before virsh acts, the domain as it was.
      const again = await power([`libvirt:${DOMAIN}`, 'pause', '--yes']);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`libvirt:${DOMAIN}: cannot pause: the domain is paused`);
      expect(await domstate()).toBe('paused');

      expect((await power([`libvirt:${DOMAIN}`, 'resume', '--yes'])).code).toBe(0);
      expect(await domstate()).toBe('running');
      const reset = await power([`libvirt:${DOMAIN}`, 'reset', '--yes']);
      expect(reset.stderr).toContain('power reset: reset (virsh reset)');
      expect(await domstate()).toBe('running');

      const stopped = await power([`libvirt:${DOMAIN}`, 'stop', '--yes']);
      expect(stopped.stderr).toContain('power stop: stopped (virsh destroy)');
      expect(await domstate()).toBe('shut off');
      const listed = await runProgram(process.execPath, [VCONSOLE_BIN, 'list', '--provider', 'libvirt', '-o', 'json'], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ target: `libvirt:${DOMAIN}`, state: 'shut off' }));

      const started = await power([`libvirt:${DOMAIN}`, 'start', '--yes']);
      expect(started.code, started.stderr).toBe(0);
      await adoptQemu();
      expect(await domstate()).toBe('running');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'through ssh (libvirt+ssh://HOST/DOMAIN): virsh runs on the host',
    async () => {
      const env = { VCONSOLE_SSH_COMMAND: sshd.sshCommand };
      const target = `libvirt+ssh://${sshd.hostAlias}/${DOMAIN}`;
      const paused = await power([target, 'pause', '--yes'], env);
      expect(paused.code, paused.stderr).toBe(0);
      expect(paused.stderr).toContain(`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}: power pause: paused (virsh suspend)`);
      expect(await domstate()).toBe('paused');
      expect((await power([target, 'resume', '--yes'], env)).code).toBe(0);
      expect(await domstate()).toBe('running');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'no terminal and no --yes: one line, exit 2, the domain untouched',
    async () => {
      const result = await power([`libvirt:${DOMAIN}`, 'stop']);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `vconsole: power stop asks before it acts on libvirt:${DOMAIN}, and there is no terminal to ask on; add --yes to do it without asking\n`,
      );
      expect(await domstate()).toBe('running');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
