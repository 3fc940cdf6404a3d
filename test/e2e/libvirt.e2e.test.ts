// The libvirt provider against a real libvirtd: one transient TCG domain with VNC on a unix socket,
// SPICE on a loopback port and a pty serial console (SeaBIOS's boot menu on it), reached here and
// through a real sshd (libvirt+ssh://), where virsh and the consoles go through ssh.
import { chmod, readFile, readdir, readlink, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followDomain } from '../../src/targets/libvirt/state.js';
import type { VmState } from '../../src/targets/types.js';
import { countLit, readImage, type RgbImage } from './support/images.js';
import { LIBVIRT_URI, ensureLibvirtd, tcgDomainXml, virsh } from './support/libvirtd.js';
import { listeningSockets } from './support/net.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, commandLine, descendantPids, runProgram } from './support/processes.js';
import { BOOT_MENU, ESC, askForBootMenu } from './support/serial.js';
import { startSshd, type SshServer } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand, startProxy, vconsoleEnv } from './support/vconsole.js';

const gate = requireTools(['virsh', 'libvirtd', 'virtlogd', 'qemu-system-x86_64', 'sshd', 'ssh', 'ssh-keygen', 'socat', 'ss', 'convert']);
const URI = LIBVIRT_URI;
const DOMAIN = `vce2e-${process.pid}`;
/** A second domain: VNC on a TCP autoport with a password, nothing else. */
const LOCKED = `vce2e-${process.pid}-pw`;
const VNC_PASSWORD = `pw${process.pid}`;
/** The blinking text cursor is all that may differ between two pictures of a settled BIOS screen. */
const CURSOR_PIXELS = 64;
/** SeaBIOS's first lines, at least, in lit pixels: two black pictures prove nothing. */
const MIN_TEXT_PIXELS = 500;

const lab = new ProcessLab();
let dir: string;
let sshd: SshServer;
let sshEnv: NodeJS.ProcessEnv;

function domainXml(): string {
  return `<domain type='qemu'>
  <name>${DOMAIN}</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <bootmenu enable='yes' timeout='60000'/>
    <bios useserial='yes'/>
  </os>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <graphics type='vnc'><listen type='socket'/></graphics>
    <graphics type='spice' autoport='yes'><listen type='address' address='127.0.0.1'/></graphics>
    <video><model type='qxl'/></video>
    <serial type='pty'><target port='0'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <memballoon model='none'/>
  </devices>
</domain>`;
}

function lockedXml(): string {
  return tcgDomainXml(LOCKED, `<graphics type='vnc' autoport='yes' listen='127.0.0.1' passwd='${VNC_PASSWORD}'/>`, 64);
}

/** QEMU's own picture of the screen (QMP screendump through libvirt), written where QEMU's user may write. */
async function screendump(domain: string, name: string): Promise<RgbImage> {
  const file = join(dir, `${name}.ppm`);
  const command = JSON.stringify({ execute: 'screendump', arguments: { filename: file } });
  const run = await virsh('qemu-monitor-command', domain, command);
  if (run.code !== 0) throw new Error(`screendump failed: ${run.stderr}`);
  return readImage(file);
}

function differingPixels(a: RgbImage, b: RgbImage): number {
  if (a.width !== b.width || a.height !== b.height) return Number.POSITIVE_INFINITY;
  let differ = 0;
  for (let i = 0; i < a.pixels.length; i += 3) {
    if (a.pixels[i] !== b.pixels[i] || a.pixels[i + 1] !== b.pixels[i + 1] || a.pixels[i + 2] !== b.pixels[i + 2]) differ++;
  }
  return differ;
}

/** `vconsole screenshot TARGET` matches QEMU's screendump taken right after it (polled: the cursor blinks). */
async function expectScreenshotMatches(target: string, env: NodeJS.ProcessEnv = {}, domain = DOMAIN, args: string[] = []): Promise<void> {
  let last = '';
  await pollFor(
    async () => {
      const file = join(dir, `shot-${Date.now()}.png`);
      const run = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', target, '-o', file, ...args], {
        env: vconsoleEnv(env),
        timeoutMs: 60_000,
      });
      if (run.code !== 0) throw new GiveUp(`vconsole screenshot failed: ${run.stderr}`);
      const shot = await readImage(file);
      const reference = await screendump(domain, `ref-${Date.now()}`);
      const differ = differingPixels(shot, reference);
      last = `${shot.width}x${shot.height} vs ${reference.width}x${reference.height}: ${differ} pixels differ`;
      return differ <= CURSOR_PIXELS && countLit(reference) >= MIN_TEXT_PIXELS ? true : undefined;
    },
    { what: `a screenshot of ${target} equal to QEMU's screendump`, timeoutMs: 90_000, intervalMs: 500, detail: () => last },
  );
}

/** Whether process `pid` (or one of its descendants) has `file` open. */
async function holdsFile(pid: number, file: string): Promise<boolean> {
  for (const holder of [pid, ...(await descendantPids(pid))]) {
    const fds = await readdir(`/proc/${holder}/fd`).catch(() => [] as string[]);
    const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${holder}/fd/${fd}`).catch(() => '')));
    if (targets.includes(file)) return true;
  }
  return false;
}

/** Resets the domain, then sends ESC through the console at `port` until SeaBIOS's boot menu comes back. */
async function expectBootMenuThrough(port: number): Promise<void> {
  const socket = net.connect({ host: '127.0.0.1', port });
  let seen = '';
  socket.on('data', (chunk: Buffer) => (seen = (seen + chunk.toString('latin1')).slice(-8192)));
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    expect((await virsh('reset', DOMAIN)).code).toBe(0);
    await pollFor(
      () => {
        if (BOOT_MENU.test(seen)) return true;
        socket.write(ESC);
        return undefined;
      },
      { what: 'the boot menu on the serial console', timeoutMs: 90_000, intervalMs: 300, detail: () => JSON.stringify(seen.slice(-400)) },
    );
  } finally {
    socket.destroy();
  }
}

/** SPICE's link handshake: the client's REDQ link message, the server's REDQ reply. */
async function expectSpiceLinkReply(port: number): Promise<void> {
  const socket = net.connect({ host: '127.0.0.1', port });
  try {
    const header = Buffer.alloc(16);
    header.write('REDQ', 0, 'latin1');
    header.writeUInt32LE(2, 4);
    header.writeUInt32LE(2, 8);
    header.writeUInt32LE(18, 12);
    const body = Buffer.alloc(18);
    body.writeUInt8(1, 4); // the main channel
    body.writeUInt32LE(18, 14); // caps offset: none follow
    const reply = await new Promise<Buffer>((resolve, reject) => {
      let got = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        got = Buffer.concat([got, chunk]);
        if (got.length >= 4) resolve(got);
      });
      socket.once('error', reject);
      socket.once('close', () => reject(new Error('closed before the SPICE reply')));
      socket.write(Buffer.concat([header, body]));
    });
    expect(reply.subarray(0, 4).toString('latin1')).toBe('REDQ');
  } finally {
    socket.destroy();
  }
}

/** Listeners held by ssh, sshd, socat or nc (the carriage), the test sshd's own port left out. */
async function carriageListeners(): Promise<string[]> {
  const found: string[] = [];
  for (const socket of await listeningSockets()) {
    if (socket.port === sshd.port) continue;
    const command = (await commandLine(socket.pid)) ?? '';
    // An sshd's own listening daemon (another test file's, running beside this one) is no carriage.
    if (/^sshd: .*\[listener\]/.test(command)) continue;
    if (/^(\S*\/)?(ssh|sshd|socat|nc)\b/.test(command)) found.push(`${socket.address}:${socket.port} (${command})`);
  }
  return found;
}

async function acceptedSessions(): Promise<number> {
  return ((await sshd.log()).match(/Accepted publickey/g) ?? []).length;
}

describe.skipIf(gate.skip)(gatedTitle('libvirt: a real libvirtd, here and through a real sshd', gate), () => {
  beforeAll(async () => {
    await ensureLibvirtd(lab);
    dir = await lab.tempDir('libvirt');
    // QEMU runs as libvirt's own user: its screendumps land here.
    await chmod(dir, 0o777);
    const xmlFile = join(dir, 'domain.xml');
    await writeFile(xmlFile, domainXml());
    await writeFile(join(dir, 'locked.xml'), lockedXml());
    for (const file of [xmlFile, join(dir, 'locked.xml')]) {
      const created = await virsh('create', file);
      if (created.code !== 0) throw new Error(`virsh create failed: ${created.stderr}`);
    }
    // libvirtd starts QEMU in an environment of its own making: the reaper knows it by its pid.
    for (const domain of [DOMAIN, LOCKED]) {
      const pid = Number((await readFile(`/run/libvirt/qemu/${domain}.pid`, 'utf8').catch(() => '')).trim());
      lab.adopt(pid, domain);
    }
    sshd = await startSshd(lab);
    sshEnv = { VCONSOLE_SSH_COMMAND: sshd.sshCommand };
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const domain of [DOMAIN, LOCKED]) await virsh('destroy', domain).catch(() => undefined);
    await lab.cleanup();
  });

  it(
    'list shows the domain and its state, here and over ssh (--connect qemu+ssh://)',
    async () => {
      const here = await runProgram(process.execPath, [VCONSOLE_BIN, 'list', '--provider', 'libvirt', '-o', 'json'], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(here.code, here.stderr).toBe(0);
      expect(JSON.parse(here.stdout)).toContainEqual(
        expect.objectContaining({ target: `libvirt:${DOMAIN}`, state: 'running', console: true }),
      );
      const remote = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'list', '--provider', 'libvirt', '--connect', `qemu+ssh://${sshd.hostAlias}/system`, '-o', 'name'],
        { env: vconsoleEnv(sshEnv), timeoutMs: 60_000 },
      );
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.stdout.split('\n')).toContain(`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}`);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "the serial console (the domain's pty) carries SeaBIOS's boot menu both ways, here and through ssh",
    async () => {
      const local = await startProxy(lab, [`libvirt:${DOMAIN}#serial`]);
      await expectBootMenuThrough(local.ports[0].port);
      await local.interrupt();
      const before = await acceptedSessions();
      const remote = await startProxy(lab, [`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}#serial`], [], sshEnv);
      await expectBootMenuThrough(remote.ports[0].port);
      await remote.interrupt();
      expect(await acceptedSessions()).toBeGreaterThan(before);
    },
    E2E_TEST_TIMEOUT_MS * 2,
  );

  it(
    "--type auto takes the first graphics (VNC on a unix socket): the screenshot is QEMU's own screen",
    async () => {
      await expectScreenshotMatches(`libvirt:${DOMAIN}`);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'over ssh the VNC socket is carried by an ssh stdio channel: same screen, an ssh session, no port opened for it',
    async () => {
      const before = await acceptedSessions();
      const proxy = await startProxy(lab, [`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}`], ['--share'], sshEnv);
      const { port } = proxy.ports[0];
      const shot = join(dir, 'ssh-shot.png');
      const run = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', `tcp://127.0.0.1:${port}`, '-o', shot], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      // The hub holds the console open through ssh now: nothing of the carriage listens anywhere.
      expect(await carriageListeners()).toEqual([]);
      await proxy.interrupt();
      expect(await acceptedSessions()).toBeGreaterThan(before);
      await expectScreenshotMatches(`libvirt+ssh://${sshd.hostAlias}/${DOMAIN}`, sshEnv);
    },
    E2E_TEST_TIMEOUT_MS * 2,
  );

  it(
    "a VNC autoport with passwd=: without --vnc-password-file one line says to give it; with it, QEMU's own screen",
    async () => {
      const refused = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', `libvirt:${LOCKED}`, '-o', join(dir, 'no.png')], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/asks for a VNC password.*--vnc-password-file/);
      expect(refused.stderr).not.toContain(VNC_PASSWORD);
      const passwordFile = join(dir, 'vnc-password');
      await writeFile(passwordFile, `${VNC_PASSWORD}\n`, { mode: 0o600 });
      await expectScreenshotMatches(`libvirt:${LOCKED}`, {}, LOCKED, ['--vnc-password-file', passwordFile]);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'SPICE on its autoport answers the link message, here and through ssh -W',
    async () => {
      const proxy = await startProxy(lab, [`libvirt:${DOMAIN}#spice`, `libvirt+ssh://${sshd.hostAlias}/${DOMAIN}#spice`], [], sshEnv);
      for (const { port } of proxy.ports) await expectSpiceLinkReply(port);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`open @WORKSPACE --record DIR` with a --libvirt-filter workspace of the config file, and `console libvirt:DOMAIN`',
    async () => {
      const config = join(dir, 'config.yaml');
      // The filter's `$` leaves the password domain (DOMAIN-pw) out: one console, the selector's.
      await writeFile(config, `workspaces:\n  lv:\n    connect: ${URI}\n    libvirtFilter: ^${DOMAIN}$\n    type: vnc\n`);
      const recordings = await lab.tempDir('libvirt-rec');
      const opened = await startPortCommand(
        lab,
        'open',
        ['@lv'],
        ['--viewer', 'none', '--no-tui', '--record', recordings, '--config', config],
      );
      expect(opened.ports).toHaveLength(1);
      const shot = join(dir, 'open-shot.png');
      const run = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', `tcp://127.0.0.1:${opened.ports[0].port}`, '-o', shot], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      await opened.interrupt();
      const files = await readdir(recordings);
      expect(files).toHaveLength(1);
      expect((await stat(join(recordings, files[0]))).size).toBeGreaterThan(1_000);

      // `vconsole console`: the boot menu on its stdout after a reset, ESC typed on its stdin.
      // The reset once vconsole holds the domain's pty, however long it took to start: a reset
      // before that, SeaBIOS's prompt may be over by the time ESC can reach it.
      const pty = (await virsh('ttyconsole', DOMAIN)).stdout.trim();
      expect(pty).toMatch(/^\/dev\/pts\/\d+$/);
      const asked = await askForBootMenu(lab, [`libvirt:${DOMAIN}#serial`], {}, async (consoleProcess) => {
        await pollFor(
          async () => {
            if (consoleProcess.hasExited()) throw new GiveUp(`vconsole console exited early:\n${consoleProcess.describe()}`);
            return (await holdsFile(consoleProcess.pid, pty)) ? true : undefined;
          },
          { what: `vconsole console holding ${pty}`, detail: () => consoleProcess.describe() },
        );
        expect((await virsh('reset', DOMAIN)).code).toBe(0);
      });
      expect(asked.code, asked.stderr).toBe(0);
      expect(asked.stdout).toMatch(BOOT_MENU);
    },
    E2E_TEST_TIMEOUT_MS * 2,
  );

  it(
    "state follows libvirt's lifecycle events (suspend, resume), with polling out of the way",
    async () => {
      const states: VmState[] = [];
      const controller = new AbortController();
      const following = followDomain({ kind: 'local', uri: URI }, DOMAIN, {
        signal: controller.signal,
        onState: (state) => states.push(state),
        log: () => undefined,
        pollMs: 3_600_000,
      });
      try {
        await pollFor(() => (states.some((s) => s.phase === 'Running') ? true : undefined), { what: 'the first state' });
        // Running is not proof that it has registered for events yet: pause and resume until both are seen.
        await pollFor(
          async () => {
            if (states.some((s) => s.phase === 'Paused') && states.at(-1)?.phase === 'Running') return true;
            await virsh('suspend', DOMAIN);
            await virsh('resume', DOMAIN);
            return undefined;
          },
          { what: 'Paused, then Running again', timeoutMs: 60_000, intervalMs: 1_000, detail: () => JSON.stringify(states) },
        );
      } finally {
        controller.abort();
        await following;
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
