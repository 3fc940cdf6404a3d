// Nothing vconsole starts outlives it, here or on the host it reaches through ssh: ssh, the far
// agent of --via, virsh and the console's channel on a libvirt+ssh:// host. Each run is ended by a
// signal sent to vconsole alone (as `kill`, a service manager or a closed terminal's SIGHUP would:
// ssh is in a process group of its own here, so nothing else reaches it) in each phase: while ssh
// logs in, while a console is being reached, while it is served, and during the shutdown. Then no
// process may remain that carries the run's marker: here the marker vconsole was started with,
// which ssh inherits; there the one the test sshd gives every session (SetEnv), which what runs
// there inherits, wherever it was reparented to when its session ended.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibvirtd, tcgDomainXml, virsh } from './support/libvirtd.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, type RunningProcess } from './support/processes.js';
import { startSshd, type SshServer } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { parsePortLines, vconsoleEnv } from './support/vconsole.js';

const gate = requireTools(['sshd', 'ssh', 'ssh-keygen']);
const libvirtGate = requireTools(['sshd', 'ssh', 'ssh-keygen', 'virsh', 'libvirtd', 'virtlogd', 'qemu-system-x86_64', 'socat']);
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type Ending = (typeof SIGNALS)[number];

const run = randomBytes(6).toString('hex');
/** In the environment of vconsole and of what it starts here. */
const HERE_MARK = `VCONSOLE_ORPHAN_HERE=${run}`;
/** In the environment of every session of the test sshd, and of what it starts there. */
const HOST_MARK = `VCONSOLE_ORPHAN_HOST=${run}`;
const HOST_ALIAS = 'orphan-host';
const DOMAIN = `vce2e-orphans-${process.pid}`;

const lab = new ProcessLab();
let sshd: SshServer;

/** Every running process (zombies are gone) with a mark in its environment: pid and command line. */
function marked(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (!environ.includes(HERE_MARK) && !environ.includes(HOST_MARK)) continue;
      const where = environ.includes(HOST_MARK) ? 'host' : 'here';
      found.push(`${where}: ${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A TCP server that accepts and never says a word: an ssh server or a console that hangs. */
async function silentServer(): Promise<{ port: number; connections(): number; close(): void }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

function startVconsole(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  const [name, value] = HERE_MARK.split('=');
  return lab.start(`vconsole ${args[0]}`, process.execPath, [VCONSOLE_BIN, ...args], {
    cwd: REPO_ROOT,
    env: vconsoleEnv({
      [name]: value,
      VCONSOLE_SSH_COMMAND: sshd.sshCommand,
      VCONSOLE_VIA_COMMAND: `${process.execPath} ${VCONSOLE_BIN}`,
      ...env,
    }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

async function waitUntil(what: string, proc: RunningProcess, condition: () => boolean): Promise<void> {
  await pollFor(
    () => {
      if (condition()) return true;
      if (proc.hasExited()) throw new Error(`vconsole exited before ${what}:\n${proc.describe()}`);
      return undefined;
    },
    { what, timeoutMs: 90_000, detail: () => `${proc.describe()}\nmarked: ${marked().join('\n')}` },
  );
}

/**
 * Ends vconsole with `ending` (`exiting`: SIGINT, then the signal while it shuts down) and waits
 * until it has exited and nothing marked runs here or on the host.
 */
async function endAndExpectNothingLeft(proc: RunningProcess, signal: Ending, exiting = false): Promise<void> {
  if (exiting) proc.child.kill('SIGINT');
  proc.child.kill(signal);
  const exited = await Promise.race([proc.exited, delay(60_000, undefined, { ref: false })]);
  expect(exited, `vconsole did not exit on ${signal}:\n${proc.describe()}`).toBeDefined();
  await pollFor(() => (marked().length === 0 ? true : undefined), {
    what: `nothing of vconsole's left here or on the host after ${exiting ? 'SIGINT and ' : ''}${signal}`,
    timeoutMs: 30_000,
    detail: () => `${marked().join('\n')}\n${proc.describe()}`,
  });
}

/** The test sshd's ssh command as a list: /bin/sh runs it without exec, so ssh is its child. */
const compoundSshCommand = (options = '') => `cd / && ${sshd.sshCommand} ${options}`.trim();

beforeAll(async () => {
  if (gate.skip) return;
  const farHome = join(await lab.tempDir('orphans'), 'far-home');
  await mkdir(farHome, { recursive: true });
  sshd = await startSshd(lab, HOST_ALIAS, { configLines: [`SetEnv HOME=${farHome} ${HOST_MARK}`] });
}, E2E_SETUP_TIMEOUT_MS);

afterAll(() => lab.cleanup(), E2E_SETUP_TIMEOUT_MS);

describe.skipIf(gate.skip)(gatedTitle('--via: ssh here and the far agent there end with vconsole', gate), () => {
  it.each(SIGNALS)(
    'while ssh logs in (the bastion never answers), %s leaves no ssh here',
    async (signal) => {
      const bastion = await silentServer();
      try {
        const proc = startVconsole(['proxy', '--via', HOST_ALIAS, 'demo:vm-a'], {
          VCONSOLE_SSH_COMMAND: `${sshd.sshCommand} -o Port=${bastion.port}`,
        });
        await waitUntil('ssh to reach the bastion', proc, () => bastion.connections() > 0 && marked().some((p) => / ssh /.test(p)));
        await endAndExpectNothingLeft(proc, signal);
      } finally {
        bastion.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it.each(SIGNALS)(
    'while the far agent reaches a console that never answers, %s ends ssh here and the agent there',
    async (signal) => {
      const vm = await silentServer();
      try {
        const proc = startVconsole(['screenshot', '--via', HOST_ALIAS, `tcp://127.0.0.1:${vm.port}`, '-o', '/dev/null']);
        await waitUntil('the far agent to dial the console', proc, () => vm.connections() > 0);
        expect(marked().some((p) => p.startsWith('host:') && p.includes('agent --stdio'))).toBe(true);
        await endAndExpectNothingLeft(proc, signal);
      } finally {
        vm.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it.each(SIGNALS.flatMap((signal) => [[signal, false] as const, [signal, true] as const]))(
    'while a console is served, %s (during the shutdown: %s) ends ssh here and the agent there',
    async (signal, exiting) => {
      const proc = startVconsole(['proxy', '--via', HOST_ALIAS, 'demo:vm-a']);
      await waitUntil('the port line', proc, () => parsePortLines(proc.stdout()).length === 1);
      await endAndExpectNothingLeft(proc, signal, exiting);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it.each(SIGNALS)(
    'with a compound VCONSOLE_SSH_COMMAND (`cd / && ssh ...`, ssh a child of its shell), %s while ssh logs in leaves no ssh here',
    async (signal) => {
      const bastion = await silentServer();
      try {
        const proc = startVconsole(['proxy', '--via', HOST_ALIAS, 'demo:vm-a'], {
          VCONSOLE_SSH_COMMAND: compoundSshCommand(`-o Port=${bastion.port}`),
        });
        await waitUntil('ssh to reach the bastion', proc, () => bastion.connections() > 0 && marked().some((p) => / ssh /.test(p)));
        await endAndExpectNothingLeft(proc, signal);
      } finally {
        bastion.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'with a compound VCONSOLE_SSH_COMMAND, SIGTERM while a console is served ends ssh here and the agent there',
    async () => {
      const proc = startVconsole(['proxy', '--via', HOST_ALIAS, 'demo:vm-a'], { VCONSOLE_SSH_COMMAND: compoundSshCommand() });
      await waitUntil('the port line', proc, () => parsePortLines(proc.stdout()).length === 1);
      await endAndExpectNothingLeft(proc, 'SIGTERM');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'console --via ends with its stdin, and so does everything it started',
    async () => {
      const proc = startVconsole(['console', '--via', HOST_ALIAS, 'demo:vm-c#serial']);
      proc.child.stdin?.write('echo through-the-bastion\n');
      await waitUntil('the serial console to answer', proc, () => proc.stdout().includes('through-the-bastion\r\n'));
      proc.child.stdin?.end();
      expect((await proc.exited).code, proc.describe()).toBe(0);
      await pollFor(() => (marked().length === 0 ? true : undefined), {
        what: 'nothing left after stdin ended',
        detail: () => marked().join('\n'),
      });
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

/** A transient TCG domain with VNC on a unix socket: carried by socat through ssh. */
function domainXml(): string {
  return tcgDomainXml(DOMAIN, "<graphics type='vnc'><listen type='socket'/></graphics>");
}

describe.skipIf(libvirtGate.skip)(
  gatedTitle('libvirt+ssh://: virsh and the console channel on the host end with vconsole', libvirtGate),
  () => {
    beforeAll(async () => {
      await ensureLibvirtd(lab);
      const xml = join(await lab.tempDir('orphans-libvirt'), 'domain.xml');
      await writeFile(xml, domainXml());
      const created = await virsh('create', xml);
      if (created.code !== 0) throw new Error(`virsh create failed: ${created.stderr}`);
      const pid = Number(readFileSync(`/run/libvirt/qemu/${DOMAIN}.pid`, 'utf8').trim());
      lab.adopt(pid, DOMAIN);
    }, E2E_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await virsh('destroy', DOMAIN);
    });

    /** open with the VM's state followed through `virsh event --loop` on the host, and a client on its port. */
    async function openServed(env: NodeJS.ProcessEnv = {}): Promise<RunningProcess> {
      const proc = startVconsole(['open', '--viewer', 'none', '--no-tui', `libvirt+ssh://${HOST_ALIAS}/${DOMAIN}`], env);
      await waitUntil('the port line', proc, () => parsePortLines(proc.stdout()).length === 1);
      const client = net.connect({ host: '127.0.0.1', port: parsePortLines(proc.stdout())[0].port });
      client.on('error', () => undefined);
      let greeting = '';
      client.on('data', (chunk: Buffer) => (greeting += chunk.toString('latin1')));
      await waitUntil('the VNC greeting through ssh and socat', proc, () => greeting.startsWith('RFB '));
      await waitUntil('virsh event --loop on the host', proc, () =>
        marked().some((p) => p.startsWith('host:') && / event .*--loop/.test(p)),
      );
      return proc;
    }

    it.each(SIGNALS.flatMap((signal) => [[signal, false] as const, [signal, true] as const]))(
      'open served, %s (during the shutdown: %s): no ssh here, no virsh or socat on the host',
      async (signal, exiting) => {
        await endAndExpectNothingLeft(await openServed(), signal, exiting);
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      'open served with a compound VCONSOLE_SSH_COMMAND (`cd / && ssh ...`), SIGTERM: no ssh here, no virsh or socat on the host',
      async () => {
        await endAndExpectNothingLeft(await openServed({ VCONSOLE_SSH_COMMAND: compoundSshCommand() }), 'SIGTERM');
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it.each(SIGNALS.flatMap((signal) => [[signal, false] as const, [signal, true] as const]))(
      'while ssh logs in to the host (which never answers), %s leaves no ssh here (a compound VCONSOLE_SSH_COMMAND: %s)',
      async (signal, compound) => {
        const host = await silentServer();
        try {
          const options = `-o Port=${host.port}`;
          const proc = startVconsole(['open', '--viewer', 'none', '--no-tui', `libvirt+ssh://${HOST_ALIAS}/${DOMAIN}`], {
            VCONSOLE_SSH_COMMAND: compound ? compoundSshCommand(options) : `${sshd.sshCommand} ${options}`,
          });
          await waitUntil('ssh to reach the host', proc, () => host.connections() > 0 && marked().some((p) => / ssh /.test(p)));
          await endAndExpectNothingLeft(proc, signal);
        } finally {
          host.close();
        }
      },
      E2E_TEST_TIMEOUT_MS,
    );
  },
);
