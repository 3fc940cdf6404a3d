import { VIA_PROTOCOL } from '../../src/via/protocol.js';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectVmScreen } from './support/expectations.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, commandLine, descendantPids, runProgram, type RunningProcess } from './support/processes.js';
import { startQemuVm, type QemuVm } from './support/qemu.js';
import { startSshd, type SshServer } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand, vconsoleEnv } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';

// --via through a real OpenSSH server: the far vconsole is this checkout, run by sshd's session
// in a temp home (sshd's SetEnv HOME), reached with `ssh -F CONFIG` as VCONSOLE_SSH_COMMAND.

const sshGate = requireTools(['sshd', 'ssh', 'ssh-keygen']);
const gate = requireTools(['sshd', 'ssh', 'ssh-keygen', 'qemu-system-x86_64', 'vncsnapshot']);
const lab = new ProcessLab();
let sshd: SshServer;
let farHome: string;
let vm: QemuVm;
let dir: string;

/** What every vconsole here runs with: the test's ssh, and this checkout as the far vconsole. */
function viaEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return vconsoleEnv({
    VCONSOLE_SSH_COMMAND: sshd.sshCommand,
    VCONSOLE_VIA_COMMAND: `${process.execPath} ${VCONSOLE_BIN}`,
    ...extra,
  });
}

function vconsole(args: readonly string[], extra: NodeJS.ProcessEnv = {}) {
  return runProgram(process.execPath, [VCONSOLE_BIN, ...args], { env: viaEnv(extra), timeoutMs: 120_000 });
}

/** The far agents sshd runs now (their command lines say `agent --stdio`). */
async function farAgents(): Promise<number[]> {
  const pids = await descendantPids(sshd.process.pid);
  const lines = await Promise.all(pids.map(async (pid) => [pid, await commandLine(pid)] as const));
  return lines.filter(([, line]) => line?.includes('agent --stdio') && line.includes('node')).map(([pid]) => pid);
}

/** Ends every ssh session sshd holds, as a dropped network would: its per-connection processes killed. */
async function dropSshSessions(): Promise<void> {
  for (const pid of await descendantPids(sshd.process.pid)) {
    if ((await commandLine(pid))?.startsWith('sshd:')) process.kill(pid, 'SIGKILL');
  }
}

function startConsole(args: readonly string[]): RunningProcess {
  return lab.start('vconsole console --via', process.execPath, [VCONSOLE_BIN, 'console', ...args], {
    cwd: REPO_ROOT,
    env: viaEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

beforeAll(async () => {
  if (sshGate.skip) return;
  dir = await lab.tempDir('via');
  farHome = join(dir, 'far-home');
  await mkdir(farHome, { recursive: true });
  sshd = await startSshd(lab, 'vconsole-bastion', { configLines: [`SetEnv HOME=${farHome}`] });
  if (gate.skip) return;
  vm = await startQemuVm(lab, 'via-vm', dir);
}, E2E_SETUP_TIMEOUT_MS);

// The far side's refusal through a real sshd (no VM needed): the command ends as it would there,
// and so do ssh and the far agent. The same with a stand-in ssh: test/integration/via-cli.test.ts.
describe.skipIf(sshGate.skip)(gatedTitle('--via through a real sshd, refused there', sshGate), () => {
  it(
    "proxy and open --via end with the bastion's refusal of a bad target, its exit code, and no ssh session left",
    async () => {
      for (const args of [['proxy'], ['open', '--viewer', 'none']]) {
        const refused = await vconsole([...args, '--via', sshd.hostAlias, 'nosuch:vm']);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toMatch(/^vconsole: via vconsole-bastion: unknown target scheme "nosuch:" in "nosuch:vm"; use one of /);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      }
      // A cloud the bastion has no credentials for: its pre-flight's line, marked as the bastion's.
      const noCloud = await vconsole(['proxy', '--via', sshd.hostAlias, 'openstack:nosuchcloud/vm1']);
      expect(noCloud.code, noCloud.stderr).toBe(2);
      expect(noCloud.stderr).toMatch(/^vconsole: openstack:nosuchcloud\/vm1: via vconsole-bastion: no OpenStack credentials found/);
      await pollFor(async () => ((await farAgents()).length === 0 ? true : undefined), { what: 'the far agents to exit' });
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
afterAll(() => lab.cleanup(), E2E_SETUP_TIMEOUT_MS);

describe.skipIf(gate.skip)(gatedTitle('--via through a real sshd', gate), () => {
  it(
    'list --via lists what the far vconsole finds, with its own config (an alias only the bastion knows)',
    async () => {
      await mkdir(join(farHome, '.config', 'vconsole'), { recursive: true });
      await writeFile(
        join(farHome, '.config', 'vconsole', 'config.yaml'),
        'defaults:\n  provider: kubevirt\naliases:\n  farvm: demo:far-only\n',
      );
      const listed = await vconsole(['list', '--via', sshd.hostAlias, '--provider', 'demo', '-o', 'name']);
      expect(listed.stderr).toBe('');
      expect(listed.stdout.split('\n')).toContain('demo:vm-a');
      // The alias is the bastion's: screenshot --via resolves it there.
      const shot = join(dir, 'far-only.png');
      const taken = await vconsole(['screenshot', '--via', sshd.hostAlias, 'farvm', '-o', shot]);
      expect(taken.code, taken.stderr).toBe(0);
      const png = PNG.sync.read(await readFile(shot));
      expect([png.width, png.height]).toEqual([800, 600]);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "proxy --via serves a QEMU VM's tcp console dialled on the bastion: the port here shows its screen, pixel for pixel",
    async () => {
      const proxy = await startPortCommand(lab, 'proxy', [`tcp://127.0.0.1:${vm.tcpPort}`], ['--via', sshd.hostAlias], viaEnv());
      await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vm);
      // A second viewer gets its own stream through the same ssh connection.
      await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vm);
      expect(await farAgents()).toHaveLength(1);
      await proxy.interrupt();
      // Ctrl+C here ends everything there.
      await pollFor(async () => ((await farAgents()).length === 0 ? true : undefined), { what: 'the far agent to exit' });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'open --via (no terminal) serves the demo consoles of the bastion on ports here, and says a dropped connection for each',
    async () => {
      const open = await startPortCommand(
        lab,
        'open',
        ['demo:vm-a', 'demo:vm-b', 'demo:vm-c#serial', `tcp://127.0.0.1:${vm.tcpPort}`],
        ['--via', sshd.hostAlias, '--viewer', 'none'],
        viaEnv(),
      );
      // The QEMU screen dialled on the bastion, through open's shared screen here: pixel for pixel.
      const qemu = open.ports.find((line) => line.target.startsWith('tcp://'));
      expect(qemu, JSON.stringify(open.ports)).toBeDefined();
      await expectVmScreen(await takeVncSnapshot(qemu?.port ?? 0, dir), vm);
      const vmB = open.ports.find((line) => line.target === 'demo:vm-b')?.port;
      const shot = join(dir, 'open-via.png');
      const taken = await vconsole(['screenshot', `tcp://127.0.0.1:${vmB}`, '-o', shot]);
      expect(taken.code, taken.stderr).toBe(0);
      expect(PNG.sync.read(await readFile(shot)).width).toBe(800);
      await dropSshSessions();
      // The shared screens say why they dropped; the serial line, which would dial again, ends with it.
      await pollFor(
        () => {
          const said = open.process.stderr();
          return said.includes('[demo:vm-a] warning: console dropped: RFB connection failed: connection to vconsole-bastion lost') &&
            /\[demo:vm-c#serial\] warning: connection to vconsole-bastion lost; with --wait vconsole connects again/.test(said)
            ? true
            : undefined;
        },
        { what: 'each console to say the connection was lost', detail: () => open.process.describe() },
      );
      // Without --wait the shared screens end too, instead of "reconnecting" for ever.
      await pollFor(
        () => {
          const said = open.process.stderr();
          return ['demo:vm-a', 'demo:vm-b'].every((name) =>
            said.includes(`[${name}] error: console ended: connection to vconsole-bastion lost; with --wait vconsole connects again`),
          )
            ? true
            : undefined;
        },
        { what: 'each shared screen to end', detail: () => open.process.describe() },
      );
      const late = await vconsole(['screenshot', `tcp://127.0.0.1:${vmB}`, '-o', join(dir, 'open-via-late.png')]);
      expect(late.code, late.stderr).not.toBe(0);
      await open.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "console --via attaches the demo's serial line, and a dropped ssh connection ends it honestly",
    async () => {
      const attached = startConsole(['--via', sshd.hostAlias, 'demo:vm-c#serial']);
      attached.child.stdin?.write('echo through-the-bastion\n');
      await pollFor(() => (attached.stdout().includes('through-the-bastion\r\n') ? true : undefined), {
        what: 'the serial console to answer through the bastion',
        detail: () => attached.describe(),
      });
      await dropSshSessions();
      const status = await attached.exited;
      expect(status.code, attached.describe()).toBe(1);
      expect(attached.stderr()).toContain('connection to vconsole-bastion lost');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'console --via --wait connects again after the drop and the console answers again',
    async () => {
      const attached = startConsole(['--via', sshd.hostAlias, '--wait', '2m', 'demo:vm-c#serial']);
      attached.child.stdin?.write('echo first\n');
      await pollFor(() => (attached.stdout().includes('first\r\n') ? true : undefined), {
        what: 'the serial console to answer',
        detail: () => attached.describe(),
      });
      await dropSshSessions();
      await pollFor(() => (attached.stderr().includes('connected to vconsole-bastion again') ? true : undefined), {
        what: 'the link to come back',
        timeoutMs: 90_000,
        detail: () => attached.describe(),
      });
      await pollFor(
        () => {
          attached.child.stdin?.write('echo second\n');
          return attached.stdout().includes('second\r\n') ? true : undefined;
        },
        { what: 'the serial console to answer after the drop', intervalMs: 1000, detail: () => attached.describe() },
      );
      attached.child.stdin?.end();
      expect((await attached.exited).code, attached.describe()).toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'open --via --wait connects again after the drop, and the shared screen comes back on the same port',
    async () => {
      const open = await startPortCommand(
        lab,
        'open',
        ['demo:vm-a'],
        ['--via', sshd.hostAlias, '--viewer', 'none', '--wait', '2m'],
        viaEnv(),
      );
      const first = await vconsole(['screenshot', `tcp://127.0.0.1:${open.ports[0].port}`, '-o', join(dir, 'before.png')]);
      expect(first.code, first.stderr).toBe(0);
      await dropSshSessions();
      await pollFor(
        () => {
          const said = open.process.stderr();
          return said.includes('connected to vconsole-bastion again') && said.includes('[demo:vm-a] console back') ? true : undefined;
        },
        { what: 'the link and the screen to come back', timeoutMs: 90_000, detail: () => open.process.describe() },
      );
      const after = await vconsole(['screenshot', `tcp://127.0.0.1:${open.ports[0].port}`, '-o', join(dir, 'after.png')]);
      expect(after.code, after.stderr).toBe(0);
      await open.interrupt();
      // Ctrl+C of open ends everything there too (the far agent of the connection made again).
      await pollFor(async () => ((await farAgents()).length === 0 ? true : undefined), { what: 'the far agent to exit' });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a far vconsole of another protocol version, saying how to fix it; another release of the same protocol is said and used',
    async () => {
      // A far "vconsole" that says hello with protocol 99: the preamble, then one hello frame.
      const fake = join(dir, 'old-vconsole.mjs');
      await writeFile(
        fake,
        [
          "const body = Buffer.from(JSON.stringify({ protocol: 99, version: '0.0.1' }));",
          'const head = Buffer.alloc(9); head.writeUInt8(1, 0); head.writeUInt32BE(0, 1); head.writeUInt32BE(body.length, 5);',
          "process.stdout.write('vconsole-via-agent\\n'); process.stdout.write(Buffer.concat([head, body]));",
          'process.stdin.resume(); process.stdin.on("end", () => process.exit(0));',
        ].join('\n'),
      );
      const listed = await vconsole(['list', '--via', sshd.hostAlias, '--provider', 'demo'], {
        VCONSOLE_VIA_COMMAND: `${process.execPath} ${fake}`,
      });
      expect(listed.code).toBe(1);
      expect(listed.stdout).toBe('');
      expect(listed.stderr.trim().split('\n')).toHaveLength(1);
      expect(listed.stderr).toMatch(
        new RegExp(
          `vconsole-bastion runs vconsole 0\\.0\\.1 \\(via protocol 99\\), this is vconsole .* \\(via protocol ${VIA_PROTOCOL}\\).*vconsole install --via vconsole-bastion`,
        ),
      );
      // The same protocol in another release is used, and said: here one that leaves after its hello.
      const other = join(dir, 'other-release-vconsole.mjs');
      await writeFile(
        other,
        (await readFile(fake, 'utf8'))
          .replace('protocol: 99', `protocol: ${VIA_PROTOCOL}`)
          .replace('process.stdin.resume();', 'setTimeout(() => process.exit(0), 300);'),
      );
      const used = await vconsole(['list', '--via', sshd.hostAlias, '--provider', 'demo'], {
        VCONSOLE_VIA_COMMAND: `${process.execPath} ${other}`,
      });
      expect(used.stderr).toMatch(
        new RegExp(
          `vconsole: note: vconsole-bastion runs vconsole 0\\.0\\.1, this is .* \\(the same via protocol ${VIA_PROTOCOL}\\); vconsole install --via vconsole-bastion makes them the same`,
        ),
      );
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'says in one line when there is no vconsole on the bastion, and when ssh itself fails',
    async () => {
      const missing = await vconsole(['list', '--via', sshd.hostAlias, '--provider', 'demo'], {
        VCONSOLE_VIA_COMMAND: join(dir, 'no-such-vconsole'),
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toMatch(
        /^vconsole: no vconsole on vconsole-bastion: .*vconsole install --via vconsole-bastion puts one there/,
      );
      const unreachable = await vconsole(['list', '--via', 'nobody@no-such-host.invalid', '--provider', 'demo']);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
      expect(unreachable.stderr).toMatch(/^vconsole: ssh to nobody@no-such-host\.invalid failed: .*check that ssh HOST works/);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'install --via copies the executable for the bastion (uname -sm) into ~/.local/bin there, and --via then finds it with no VCONSOLE_VIA_COMMAND',
    async () => {
      const executables = join(dir, 'executables');
      await mkdir(executables, { recursive: true });
      // What npm run package would have built for linux-x64: here a wrapper that runs this checkout.
      const built = join(executables, `vconsole-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`);
      await writeFile(built, `#!/bin/sh\nexec ${process.execPath} ${VCONSOLE_BIN} "$@"\n`);
      await chmod(built, 0o755);
      const none = await vconsole(['install', '--via', sshd.hostAlias], { VCONSOLE_EXECUTABLES: join(dir, 'no-such-dir') });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/^vconsole: no vconsole-linux-\w+ here for vconsole-bastion \(Linux \w+\): looked in /);

      // An executable of another release is installed, and said to be another version.
      const olderDir = join(dir, 'older-executables');
      await mkdir(olderDir, { recursive: true });
      await writeFile(join(olderDir, basename(built)), '#!/bin/sh\necho 0.0.1\n');
      await chmod(join(olderDir, basename(built)), 0o755);
      const older = await vconsole(['install', '--via', sshd.hostAlias], { VCONSOLE_EXECUTABLES: olderDir });
      expect(older.code, older.stderr).toBe(0);
      expect(older.stderr).toMatch(
        /installed vconsole 0\.0\.1 on vconsole-bastion.*\nvconsole: warning: that is not this vconsole's version \(/,
      );

      const installed = await vconsole(['install', '--via', sshd.hostAlias], { VCONSOLE_EXECUTABLES: executables });
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stderr).toMatch(/vconsole-bastion runs Linux \w+: copying .* to ~\/.local\/bin\/vconsole there/);
      expect(installed.stderr).not.toContain('warning');
      const far = join(farHome, '.local', 'bin', 'vconsole');
      expect(await readFile(far)).toEqual(await readFile(built));
      expect((await stat(far)).mode & 0o777).toBe(0o755);

      const listed = await vconsole(['list', '--via', sshd.hostAlias, '--provider', 'demo', '-o', 'name'], { VCONSOLE_VIA_COMMAND: '' });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout.split('\n')).toContain('demo:vm-b');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
