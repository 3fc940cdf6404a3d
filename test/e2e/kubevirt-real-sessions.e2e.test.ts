// vconsole's KubeVirt sessions against the real programs (issue 41 item 3, the part kubevirt-real.e2e.test.ts leaves):
// selectors and --follow over real watches, `open` and joining, the pre-flight of a Role that grants only `console`,
// takeover and preserveSession as real virt-api passes them to the virt-handler stand-in, a VMI that stops under an
// open console, a VM without a VMI, --as impersonation (issue 41 item 4) and `vconsole power` through real virt-api
// (start, stop and restart as the VM object shows them; pause and resume forwarded to the stand-in). Built by scripts/kube/build.sh; see docs/DEVELOPING.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, makeLeaf, type CertPair } from './support/kube-certs.js';
import { USERS } from './support/kube-control-plane.js';
import { writeKubeconfig } from './support/kube-kubeconfig.js';
import { requireKubePrograms } from './support/kube-programs.js';
import { grantClusterWide, grantInNamespace, openConsoles, READ_VMS } from './support/kube-rbac.js';
import { NAMESPACE, OTHER_NAMESPACE, startRealKubevirt, type RealKubevirt } from './support/kubevirt-real-cluster.js';
import { parsePortLines, startPortCommand, vconsoleEnv } from './support/vconsole.js';
import { createVm } from './support/virt-handler-node.js';
import { VIRT_HANDLER_CLIENT_CN } from './support/virt-handler-standin.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, runProgram, type RunningProcess } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';

const tools = requireTools(['openssl', 'qemu-system-x86_64']);
const kube = requireKubePrograms(['etcd', 'kubeApiserver', 'kubevirtCrds', 'virtApi']);
const gate = { skip: tools.skip ?? kube.skip };

const lab = new ProcessLab();
let kv: RealKubevirt;
let env: NodeJS.ProcessEnv;
/** The token user may read VMs everywhere and open both consoles in vconsole-e2e. */
let tokenConfig: string;
/** The exec-plugin user may read VMs and open only the serial console in vconsole-e2e. */
let consoleOnlyConfig: string;
/** The harness's own user (system:masters): may impersonate, and change VMs' power. */
let adminConfig: string;

const VMA = `${NAMESPACE}/vm-a`;
/** virt-handler's close of a session, as vconsole words it (console-ending.ts; virtctl words it alike). */
const CLOSED =
  'the console closed: the VM stopped, or another client opened its console (KubeVirt keeps one session per VM); --wait reconnects';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

async function vconsole(args: readonly string[], config = tokenConfig) {
  return runProgram(process.execPath, [VCONSOLE_BIN, ...args, '--kubeconfig', config], { timeoutMs: 60_000, env: vconsoleEnv(env) });
}

async function listTargets(args: readonly string[]): Promise<{ target: string; state?: string }[]> {
  const result = await vconsole(['list', '--provider', 'kubevirt', '--json', ...args]);
  expect(result.stderr, `vconsole list ${args.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { target: string; state?: string }[]).map(({ target, state }) => ({ target, state }));
}

const handlerEvents = (kind: 'vnc' | 'console', what: string) =>
  kv.handler.events.filter((e) => e.vmi === VMA && e.kind === kind && e.what === what).length;

async function waitForOutput(proc: RunningProcess, what: string, found: (stdout: string, stderr: string) => boolean): Promise<void> {
  await pollFor(
    () => {
      if (found(proc.stdout(), proc.stderr())) return true;
      if (proc.hasExited()) throw new GiveUp(proc.describe());
      return undefined;
    },
    { what, timeoutMs: 60_000, detail: () => proc.describe() },
  );
}

function startConsole(args: readonly string[]): RunningProcess {
  return lab.start('vconsole console', process.execPath, [VCONSOLE_BIN, 'console', 'vm-a', ...args, '--kubeconfig', tokenConfig], {
    env: vconsoleEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

async function untilHandler(what: string, ready: () => boolean, proc: RunningProcess): Promise<void> {
  await pollFor(() => (ready() ? true : undefined), { what, timeoutMs: 60_000, detail: () => proc.describe() });
}

/** Speaks to the stand-in as virt-api would, with `client`'s certificate: its first line, or how the TLS ended. */
function dialStandin(client: CertPair, vmi: string): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const socket = tlsConnect({
      host: kv.handler.address,
      port: kv.handler.port,
      ca: readFileSync(kv.plane.ca.cert),
      cert: readFileSync(client.cert),
      key: readFileSync(client.key),
      checkServerIdentity: () => undefined,
    });
    socket.on('secureConnect', () =>
      socket.write(
        `GET /v1/namespaces/${NAMESPACE}/virtualmachineinstances/${vmi}/console HTTP/1.1\r\nHost: virt-handler\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
          'Sec-WebSocket-Protocol: plain.kubevirt.io\r\n\r\n',
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      if (data.includes('\r\n')) socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`));
    socket.on('close', () => resolve(data.split('\r\n')[0] || 'closed'));
  });
}

describe.skipIf(gate.skip)(gatedTitle('KubeVirt sessions through real kube-apiserver and virt-api, QEMU behind', gate), () => {
  beforeAll(async () => {
    kv = await startRealKubevirt(lab, kube.programs);
    await grantClusterWide(kv.plane, 'vconsole-e2e-reader', USERS.token.name, [READ_VMS]);
    await grantInNamespace(kv.plane, NAMESPACE, 'vconsole-e2e-consoles', USERS.token.name, [openConsoles('vnc', 'console')]);
    await grantInNamespace(kv.plane, NAMESPACE, 'vconsole-e2e-console-only', USERS.exec.name, [READ_VMS, openConsoles('console')]);
    tokenConfig = await writeKubeconfig(kv.plane, 'token', NAMESPACE);
    consoleOnlyConfig = await writeKubeconfig(kv.plane, 'exec', NAMESPACE);
    adminConfig = await writeKubeconfig(kv.plane, 'admin', NAMESPACE);
    env = { HOME: kv.plane.dir, XDG_RUNTIME_DIR: await lab.tempDir('runtime') };
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await kv?.close();
    await lab.cleanup();
  }, E2E_SETUP_TIMEOUT_MS);

  it(
    '`list -l` narrows real VMIs and VMs by label, in a namespace and across all',
    async () => {
      expect(await listTargets(['-l', 'app=web'])).toEqual([{ target: VMA, state: 'Running' }]);
      expect((await listTargets(['-A', '-l', 'app=web'])).map((vm) => vm.target)).toEqual([`${OTHER_NAMESPACE}/vm-b`, VMA]);
      expect(await listTargets(['-l', 'app!=web'])).toEqual([{ target: `${NAMESPACE}/vm-off`, state: 'Stopped' }]);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`open -l --follow` opens a VM that starts matching, and says when the real watch reports it stopped and gone',
    async () => {
      // Scheduled to the node: the stand-in bridges both to the same QEMU.
      for (const name of ['vm-first', 'vm-new'])
        kv.handler.addVmi({ namespace: NAMESPACE, name, vncSocketPath: kv.qemu.vncPath, serialSocketPath: kv.qemu.serialPath });
      await createVm(kv.plane, { namespace: NAMESPACE, name: 'vm-first', running: true, labels: { tier: 'follow' } });
      const args = ['-l', 'tier=follow', '--follow', '--no-tui', '--viewer', 'none', '--kubeconfig', tokenConfig];
      const open = await startPortCommand(lab, 'open', [], args, env);
      const proc = open.process;
      const served = (name: string) => (stdout: string) => parsePortLines(stdout).some((l) => l.target === `${NAMESPACE}/${name}`);
      // vm-new is created only once the first listing is done: it can come through the watch alone.
      await waitForOutput(proc, 'a port line for vm-first', served('vm-first'));
      await createVm(kv.plane, { namespace: NAMESPACE, name: 'vm-new', running: true, labels: { tier: 'follow' } });
      await waitForOutput(proc, 'a port line for vm-new', served('vm-new'));
      const vmi = `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/vm-new`;
      expect((await kv.plane.admin.call('PATCH', vmi, { status: { phase: 'Succeeded' } }, MERGE_PATCH)).status).toBe(200);
      await waitForOutput(proc, 'the stopped line', (_out, err) => err.includes(`[${NAMESPACE}/vm-new] warning: VM Stopped (Succeeded)`));
      await kv.plane.admin.ok('DELETE', vmi);
      await waitForOutput(proc, 'the gone line', (_out, err) => /\[vconsole-e2e\/vm-new\].*gone/.test(err));
      await open.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'the pre-flight refuses VNC to a user whose Role grants only console, before virt-api is dialled',
    async () => {
      const before = handlerEvents('vnc', 'opened');
      const result = await vconsole(['screenshot', 'vm-a', '-o', join(kv.plane.dir, 'console-only.png')], consoleOnlyConfig);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `vconsole: ${VMA}: forbidden: you may not get virtualmachineinstances/vnc in namespace "${NAMESPACE}"; ` +
          'ask for RBAC "get" on virtualmachineinstances/vnc in API group subresources.kubevirt.io\n',
      );
      expect(handlerEvents('vnc', 'opened')).toBe(before);
      expect(kv.handler.events.filter((e) => e.kind === 'vnc' && e.what === 'refused')).toEqual([]);
    },
    E2E_TEST_TIMEOUT_MS,
  );
  it(
    '--as: the pre-flight reviews for the impersonated user; one who may not impersonate is told in one line; --as a vnc user works',
    async () => {
      const before = handlerEvents('vnc', 'opened');
      const asConsoleOnly = await vconsole(
        ['screenshot', 'vm-a', '--as', USERS.exec.name, '-o', join(kv.plane.dir, 'as-1.png')],
        adminConfig,
      );
      expect(asConsoleOnly.stderr).toBe(
        `vconsole: ${VMA}: forbidden: you may not get virtualmachineinstances/vnc in namespace "${NAMESPACE}"; ` +
          'ask for RBAC "get" on virtualmachineinstances/vnc in API group subresources.kubevirt.io\n',
      );
      expect(asConsoleOnly.code).toBe(1);
      expect(handlerEvents('vnc', 'opened')).toBe(before);

      const notAllowed = await vconsole(['screenshot', 'vm-a', '--as', USERS.exec.name, '-o', join(kv.plane.dir, 'as-2.png')]);
      // kube-apiserver 1.36's constrained impersonation (beta, on) refuses the pre-flight's first request, the VMI's GET.
      expect(notAllowed.stderr).toBe(
        `vconsole: ${VMA}: the API server refuses the impersonation: virtualmachineinstances.kubevirt.io "vm-a" is forbidden: ` +
          `User "${USERS.token.name}" cannot impersonate-on:user-info:get resource "virtualmachineinstances" in API group "kubevirt.io" ` +
          `in the namespace "${NAMESPACE}"; ask for RBAC "impersonate" on users in the core API group, or run without --as (and the kubeconfig user's as)\n`,
      );
      expect(notAllowed.code).toBe(1);

      const listed = await vconsole(['list', '--provider', 'kubevirt', '--json', '--as', USERS.token.name], adminConfig);
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { target: string }[]).map((vm) => vm.target)).toContain(VMA);
      const shot = join(kv.plane.dir, 'as-3.png');
      const asTokenUser = await vconsole(['screenshot', 'vm-a', '--as', USERS.token.name, '-o', shot], adminConfig);
      expect(asTokenUser.stderr).toBe(`${VMA}: wrote ${shot}\n`);
      expect(asTokenUser.code).toBe(0);
      expect(handlerEvents('vnc', 'opened')).toBe(before + 1);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`open` holds the one VNC session, `screenshot` joins it; `--no-join` is refused via preserveSession, `--take-over` kicks open',
    async () => {
      const [opened, kicked] = [handlerEvents('vnc', 'opened'), handlerEvents('vnc', 'kicked')];
      const open = await startPortCommand(lab, 'open', ['vm-a'], ['--no-tui', '--viewer', 'none', '--kubeconfig', tokenConfig], env);
      await untilHandler('open to hold the VNC session', () => kv.handler.activeSessions(VMA, 'vnc') === 1, open.process);
      const joined = await vconsole(['screenshot', 'vm-a', '-o', join(kv.plane.dir, 'joined.png')]);
      expect(joined.code, joined.stderr).toBe(0);
      // Joined: no second session at virt-handler, nobody kicked.
      expect([handlerEvents('vnc', 'opened'), handlerEvents('vnc', 'kicked')]).toEqual([opened + 1, kicked]);

      const refused = await vconsole(['screenshot', 'vm-a', '--no-join', '-o', join(kv.plane.dir, 'refused.png')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/Active VNC connection/);
      expect(kv.handler.events.at(-1)).toEqual({ vmi: VMA, kind: 'vnc', what: 'refused', detail: 'preserveSession' });

      const taken = await vconsole(['screenshot', 'vm-a', '--no-join', '--take-over', '-o', join(kv.plane.dir, 'taken.png')]);
      expect(taken.code, taken.stderr).toBe(0);
      expect(handlerEvents('vnc', 'kicked')).toBe(kicked + 1);
      await waitForOutput(open.process, "open's line that the console closed", (_out, err) =>
        err.includes('another client opened its console'),
      );
      await open.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a second `console --no-join` takes the serial line over; the first says so in one line and does not take it back',
    async () => {
      const kicked = handlerEvents('console', 'kicked');
      const first = startConsole([]);
      await untilHandler('the first serial session', () => kv.handler.activeSessions(VMA, 'console') === 1, first);
      const opened = handlerEvents('console', 'opened');
      const second = startConsole(['--no-join']);
      await untilHandler('the takeover', () => handlerEvents('console', 'kicked') === kicked + 1, second);
      await waitForOutput(first, 'the first console to end', () => first.hasExited());
      expect((await first.exited).code).toBe(1);
      expect(first.stderr()).toBe(`vconsole: ${VMA}: ${CLOSED}\n`);
      expect(handlerEvents('console', 'opened')).toBe(opened + 1);
      expect(second.hasExited()).toBe(false);
      second.child.stdin?.end();
      await second.signalAndWait('SIGTERM', 15_000);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "the stand-in, like virt-handler, refuses a client certificate its CA did not sign, and one that is not virt-api's",
    async () => {
      const dir = await lab.tempDir('certs');
      const asVirtApi = await makeLeaf(dir, 'virt-api-client', kv.plane.ca, { commonName: VIRT_HANDLER_CLIENT_CN, usage: 'client' });
      expect(await dialStandin(asVirtApi, 'nobody')).toBe('HTTP/1.1 404 Not Found');
      const stranger = await makeCa(dir, 'stranger-ca');
      const strangers = await makeLeaf(dir, 'stranger', stranger, { commonName: VIRT_HANDLER_CLIENT_CN, usage: 'client' });
      expect(await dialStandin(strangers, 'vm-a')).toMatch(/^error |^closed$/);
      const notVirtApi = await makeLeaf(dir, 'not-virt-api', kv.plane.ca, { commonName: 'someone', usage: 'client' });
      expect(await dialStandin(notVirtApi, 'vm-a')).toMatch(/^error |^closed$/);
      expect(kv.handler.events.filter((e) => e.kind === 'console' && e.what === 'opened').length).toBe(handlerEvents('console', 'opened'));
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a VM without a VMI: `proxy` and `console` refuse in one line naming what to do',
    async () => {
      for (const command of ['proxy', 'console']) {
        const result = await vconsole([command, 'vm-off']);
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(
          `vconsole: ${NAMESPACE}/vm-off: the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start vm-off) and retry\n`,
        );
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`power` start, stop and restart through real virt-api change the VM object as virtctl does',
    async () => {
      await createVm(kv.plane, { namespace: NAMESPACE, name: 'vm-power', running: false });
      const vmPath = `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachines/vm-power`;
      const runStrategy = async () => (await kv.plane.admin.ok<{ spec: { runStrategy?: string } }>('GET', vmPath)).spec.runStrategy;
      const power = (vm: string, action: string) => vconsole(['power', vm, action, '--yes'], adminConfig);

      const haltedRestart = await power('vm-power', 'restart');
      expect(haltedRestart.code).toBe(1);
      expect(haltedRestart.stderr).toContain(
        'virtctl restart: Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm-power": RunStategy Halted does not support manual restart requests',
      );
      const started = await power('vm-power', 'start');
      expect(started.code, started.stderr).toBe(0);
      expect(await runStrategy()).toBe('Always');
      const stopped = await power('vm-power', 'stop');
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(await runStrategy()).toBe('Halted');

      // A running VM's restart: virt-controller's stop and start requests, for the VMI running now.
      const vmi = await kv.plane.admin.ok<{ metadata: { uid: string } }>(
        'GET',
        `/apis/kubevirt.io/v1/namespaces/${OTHER_NAMESPACE}/virtualmachineinstances/vm-b`,
      );
      const restarted = await power(`${OTHER_NAMESPACE}/vm-b`, 'restart');
      expect(restarted.code, restarted.stderr).toBe(0);
      const vmB = await kv.plane.admin.ok<{ status: { stateChangeRequests?: unknown[] } }>(
        'GET',
        `/apis/kubevirt.io/v1/namespaces/${OTHER_NAMESPACE}/virtualmachines/vm-b`,
      );
      expect(vmB.status.stateChangeRequests).toEqual([{ action: 'Stop', uid: vmi.metadata.uid }, { action: 'Start' }]);
      const runningStart = await power(`${OTHER_NAMESPACE}/vm-b`, 'start');
      expect(runningStart.code).toBe(1);
      expect(runningStart.stderr).toContain('VM is already running');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`power` pause and resume: real virt-api forwards them to virt-handler (QEMU stops and goes on), resume only once Paused',
    async () => {
      const vmiPath = `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/vm-a`;
      const qemuStatus = async () => ((await kv.qemu.qmp.execute('query-status')) as { status: string }).status;
      const conditions = (paused: boolean) => [
        { type: 'Ready', status: 'True' },
        ...(paused ? [{ type: 'Paused', status: 'True', reason: 'PausedByUser' }] : []),
      ];
      const report = (paused: boolean) =>
        kv.plane.admin.call('PATCH', vmiPath, { status: { conditions: conditions(paused) } }, MERGE_PATCH);
      const power = (action: string) => vconsole(['power', 'vm-a', action, '--yes'], adminConfig);

      const paused = await power('pause');
      expect(paused.code, paused.stderr).toBe(0);
      expect(kv.handler.lifecycle.at(-1)).toMatchObject({ vmi: VMA, action: 'pause' });
      expect(await qemuStatus()).toBe('paused');
      // virt-handler has not reported the Paused condition yet: virt-api refuses to unpause.
      const early = await power('resume');
      expect(early.code).toBe(1);
      expect(early.stderr).toContain('VMI is not paused');
      expect((await report(true)).status).toBe(200);
      const resumed = await power('resume');
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(kv.handler.lifecycle.at(-1)).toMatchObject({ vmi: VMA, action: 'unpause' });
      expect(await qemuStatus()).toBe('running');
      expect((await report(false)).status).toBe(200);

      // virt-api's own answers: 406 from its router to an Accept of JSON alone (the harness's client sends that), and
      // once virt-handler took the PUT, nothing written (200).
      const pausePath = `/apis/subresources.kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/vm-a/pause`;
      const jsonOnly = await kv.plane.admin.call('PUT', pausePath, {});
      expect({ status: jsonOnly.status, body: jsonOnly.body }).toEqual({
        status: 406,
        body: '406: Not Acceptable\n\nAvailable representations: ',
      });
      const direct = await kv.plane.admin.call('PUT', pausePath, {}, { accept: 'application/json, */*' });
      expect({ status: direct.status, body: direct.body }).toEqual({ status: 200, body: '' });
      await kv.qemu.qmp.execute('cont');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a VMI that stops under an open console: vconsole says the console ended and why, in one line',
    async () => {
      const proc = startConsole([]);
      await untilHandler('the serial session', () => kv.handler.activeSessions(VMA, 'console') === 1, proc);
      await kv.plane.admin.ok('DELETE', `/apis/kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/vm-a`);
      // virt-handler stops virt-launcher, and QEMU with it: the serial socket ends.
      await kv.qemu.qmp.execute('quit');
      await waitForOutput(proc, 'console to end', () => proc.hasExited());
      expect((await proc.exited).code).toBe(1);
      expect(proc.stderr()).toBe(`vconsole: ${VMA}: ${CLOSED}\n`);
      expect(kv.handler.activeSessions(VMA, 'console')).toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
