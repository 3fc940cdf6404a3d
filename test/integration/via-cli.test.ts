import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, VCONSOLE_BIN, runVconsole, type RunResult } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { AGENT_PREAMBLE, VIA_PROTOCOL } from '../../src/via/protocol.js';

// --via as the far side fails it, with a stand-in "ssh" (VCONSOLE_SSH_COMMAND): a script that
// notes its pid, then runs the real agent (as sshd would) or stalls, prints junk, or says the
// preamble and nothing more. Each run must end by itself with one line, and take ssh with it.
// The deadlines are shortened through the environment; nothing here waits on a clock of its own.
// The same through a real sshd: test/e2e/via-ssh.e2e.test.ts.

let dir: string;
let home: string;
let fakeSsh: string;
let muteAgent: string;

const FAKE_SSH = `#!/bin/sh
echo $$ > "$FAKE_SSH_PIDFILE"
# ssh's options and the host; the last argument is the remote command.
while [ $# -gt 1 ]; do shift; done
case "$FAKE_SSH_MODE" in
  silent) exec sleep 600 ;;
  junk) exec yes 'Welcome to the bastion' ;;
  junk-then-silent) echo 'Last login: yesterday'; exec sleep 600 ;;
  preamble-then-silent) printf 'vconsole-via-agent\\n'; exec sleep 600 ;;
  mute-agent) exec "$FAKE_SSH_NODE" "$FAKE_SSH_MUTE_AGENT" ;;
  slow) echo 'Last login: yesterday'; sleep 1; eval "exec $1" ;;
  *) eval "exec $1" ;;
esac
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vconsole-via-'));
  // A home with no kubeconfig nor clouds.yaml: the far side finds no cloud.
  home = path.join(dir, 'home');
  fakeSsh = path.join(dir, 'fake-ssh.sh');
  writeFileSync(fakeSsh, FAKE_SSH, { mode: 0o755 });
  // An agent that says its hello, as this version's, and then answers nothing.
  const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  muteAgent = path.join(dir, 'mute-agent.mjs');
  writeFileSync(
    muteAgent,
    [
      `const body = Buffer.from(JSON.stringify({ protocol: ${VIA_PROTOCOL}, version: ${JSON.stringify(version)} }));`,
      'const head = Buffer.alloc(9); head.writeUInt8(1, 0); head.writeUInt32BE(0, 1); head.writeUInt32BE(body.length, 5);',
      `process.stdout.write(${JSON.stringify(AGENT_PREAMBLE)}); process.stdout.write(Buffer.concat([head, body]));`,
      'process.stdin.resume();',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;

/** `vconsole ARGS --via bastion` through the stand-in ssh in `mode`; with the pid that "ssh" had. */
async function viaRun(mode: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult & { sshPid: number }> {
  const pidFile = path.join(dir, `ssh-${++runs}.pid`);
  const result = await runVconsole([...args, '--via', 'bastion'], {
    HOME: home,
    VCONSOLE_SSH_COMMAND: fakeSsh,
    VCONSOLE_VIA_COMMAND: `${process.execPath} ${VCONSOLE_BIN}`,
    FAKE_SSH_MODE: mode,
    FAKE_SSH_PIDFILE: pidFile,
    FAKE_SSH_NODE: process.execPath,
    FAKE_SSH_MUTE_AGENT: muteAgent,
    ...env,
  });
  return { ...result, sshPid: Number(readFileSync(pidFile, 'utf8').trim()) };
}

/** Whether the process runs (a zombie nobody reaped yet has ended). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

async function expectSshGone(pid: number): Promise<void> {
  await waitFor(() => !running(pid), `the stand-in ssh (pid ${pid}) to be gone`);
}

describe.skipIf(process.platform !== 'linux')('--via when the far side refuses or never answers', () => {
  it.each([
    ['proxy', ['proxy', 'nosuch:vm']],
    ['open', ['open', '--viewer', 'none', 'nosuch:vm']],
    ['console', ['console', 'nosuch:vm']],
    ['list', ['list', '--provider', 'nosuchcloud']],
  ])("%s ends with the far side's refusal, as it would here, said to come from the bastion", async (_name, args) => {
    const [local, via] = await Promise.all([runVconsole(args, { HOME: home }), viaRun('agent', args)]);
    expect(local.code).toBe(2);
    expect(via.code, via.stderr).toBe(local.code);
    expect(via.stderr).toBe(local.stderr.replace(/^vconsole: /, 'vconsole: via bastion: '));
    await expectSshGone(via.sshPid);
  });

  it("ends proxy with a named console's failed pre-flight there (no cloud configured), and its exit code", async () => {
    const args = ['proxy', 'kubevirt:default/vm1'];
    const [local, via] = await Promise.all([runVconsole(args, { HOME: home }), viaRun('agent', args)]);
    expect(local.stderr).toMatch(/^vconsole: .*no Kubernetes configuration found/);
    expect(via.code, via.stderr).toBe(local.code);
    expect(via.stderr).toBe(local.stderr.replace(/^vconsole: (\S+): /, 'vconsole: $1: via bastion: '));
    await expectSshGone(via.sshPid);
  });

  it('gives up on an ssh that says nothing (a stalled connection or login), naming the phase', async () => {
    const run = await viaRun('silent', ['proxy', 'demo:vm-a'], { VCONSOLE_VIA_LOGIN_TIMEOUT_MS: '500' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'vconsole: ssh to bastion gave nothing back within 500ms (connecting, logging in, starting vconsole there); check that ssh bastion works from this shell\n',
    );
    await expectSshGone(run.sshPid);
  });

  it('gives up on a bastion that prints without end and never the preamble, after a bounded amount of it', async () => {
    const run = await viaRun('junk', ['list']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^vconsole: bastion printed \d+ KiB \("Welcome to the bastion"\) and no vconsole agent started; /);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    await expectSshGone(run.sshPid);
  });

  it('gives up on a bastion that prints a line and then nothing, quoting the line', async () => {
    const run = await viaRun('junk-then-silent', ['open', '--viewer', 'none', 'demo:vm-a'], { VCONSOLE_VIA_HELLO_TIMEOUT_MS: '500' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^vconsole: bastion printed 22 bytes \("Last login: yesterday"\) but no vconsole agent started within 500ms; check that vconsole runs there/,
    );
    await expectSshGone(run.sshPid);
  });

  it('gives up on an agent that says the preamble and never its hello', async () => {
    const run = await viaRun('preamble-then-silent', ['console', 'demo:vm-c#serial'], { VCONSOLE_VIA_HELLO_TIMEOUT_MS: '500' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^vconsole: the vconsole agent on bastion did not say hello within 500ms; /);
    await expectSshGone(run.sshPid);
  });

  it('gives up on an agent that says hello and then answers nothing, naming what it asked', async () => {
    const run = await viaRun('mute-agent', ['proxy', 'demo:vm-a'], { VCONSOLE_VIA_REQUEST_TIMEOUT_MS: '500' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^vconsole: the vconsole on bastion gave no answer to "select" within 500ms; /);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    await expectSshGone(run.sshPid);
  });

  it('waits for a far vconsole that starts slowly after the login said something: the login deadline is over then', async () => {
    const run = await viaRun('slow', ['list', '--provider', 'demo', '-o', 'name'], { VCONSOLE_VIA_LOGIN_TIMEOUT_MS: '300' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toContain('demo:vm-a');
  });
});
